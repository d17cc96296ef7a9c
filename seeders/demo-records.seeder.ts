// Demo records for the demo organization: 36 members, 12 events and 9 courses, so lists, filters,
// sorting and CSV exports show something on a first start. Deterministic (no randomness: every value
// follows from the record's index; dates count from the day of seeding, so some events are upcoming
// and some past) and idempotent (a record whose e-mail or title exists already is left alone).
import { Op, type Transaction } from 'sequelize';
import { Course, type CourseLevel, type CourseStatus } from '../src/modules/courses/course.model.ts';
import { Event, type EventStatus } from '../src/modules/events/event.model.ts';
import { Member, type MemberStatus, type MemberTier } from '../src/modules/members/member.model.ts';

const FIRST = [
  'Ada',
  'Ben',
  'Chloe',
  'Dmitri',
  'Elena',
  'Farid',
  'Grace',
  'Hiro',
  'Ines',
  'Jonas',
  'Keiko',
  'Liam',
  'Maya',
  'Nikolai',
  'Olu',
  'Priya',
  'Quinn',
  'Rosa',
];
const LAST = [
  'Smith',
  'Smithers',
  'Okafor',
  'Nguyen',
  'Schmidt',
  'Garcia',
  'Rossi',
  'Kowalski',
  'Haddad',
  'Larsen',
  'Moreau',
  'Tanaka',
];
const STATUSES: MemberStatus[] = [
  'active',
  'active',
  'active',
  'pending',
  'lapsed',
  'active',
  'cancelled',
  'active',
  'lapsed',
];
const TYPES = ['individual', 'student', 'corporate', 'retired', 'individual', 'honorary'];

const EVENTS: Array<{
  title: string;
  days: number;
  hours: number;
  status: EventStatus;
  capacity: number | null;
  location: string | null;
  online?: boolean;
}> = [
  {
    title: 'Annual General Meeting',
    days: 21,
    hours: 3,
    status: 'published',
    capacity: 250,
    location: 'Main Hall, Leeds',
  },
  {
    title: 'Spring Networking Evening',
    days: 9,
    hours: 3,
    status: 'published',
    capacity: 80,
    location: 'The Guild Rooms, York',
  },
  {
    title: 'Webinar: Governance Basics',
    days: 4,
    hours: 1,
    status: 'published',
    capacity: null,
    location: null,
    online: true,
  },
  {
    title: 'Regional Chapter Meetup North',
    days: 35,
    hours: 2,
    status: 'published',
    capacity: 40,
    location: 'Newcastle Library',
  },
  {
    title: 'Regional Chapter Meetup South',
    days: 42,
    hours: 2,
    status: 'draft',
    capacity: 40,
    location: 'Brighton Dome Studio',
  },
  { title: 'Summer Conference 2027', days: 120, hours: 8, status: 'draft', capacity: 600, location: 'ExCeL, London' },
  {
    title: 'Mentoring Kick-off',
    days: -14,
    hours: 2,
    status: 'published',
    capacity: 30,
    location: 'Online',
    online: true,
  },
  {
    title: 'Winter Gala Dinner',
    days: -45,
    hours: 5,
    status: 'published',
    capacity: 180,
    location: 'Assembly Rooms, Bath',
  },
  {
    title: 'Board Elections Hustings',
    days: -7,
    hours: 2,
    status: 'cancelled',
    capacity: 100,
    location: 'Main Hall, Leeds',
  },
  { title: 'Volunteer Open Day', days: 14, hours: 4, status: 'published', capacity: 60, location: 'Guildhall Offices' },
  {
    title: 'Webinar: Data Protection for Members',
    days: -30,
    hours: 1,
    status: 'published',
    capacity: null,
    location: null,
    online: true,
  },
  {
    title: 'New Members Welcome Breakfast',
    days: 2,
    hours: 2,
    status: 'cancelled',
    capacity: 25,
    location: 'Cafe Nero, Leeds',
  },
];

const COURSES: Array<{
  title: string;
  level: CourseLevel;
  status: CourseStatus;
  minutes: number;
  credits: number;
  price: number;
}> = [
  {
    title: 'Introduction to Association Governance',
    level: 'introductory',
    status: 'published',
    minutes: 90,
    credits: 1.5,
    price: 0,
  },
  { title: 'Treasurer Essentials', level: 'introductory', status: 'published', minutes: 120, credits: 2, price: 49 },
  {
    title: 'Running Effective Meetings',
    level: 'intermediate',
    status: 'published',
    minutes: 60,
    credits: 1,
    price: 29.99,
  },
  {
    title: 'Membership Growth Strategies',
    level: 'intermediate',
    status: 'published',
    minutes: 180,
    credits: 3,
    price: 99,
  },
  { title: 'Advanced Event Budgeting', level: 'advanced', status: 'published', minutes: 240, credits: 4, price: 149 },
  {
    title: 'Data Protection in Practice',
    level: 'intermediate',
    status: 'draft',
    minutes: 150,
    credits: 2.5,
    price: 79,
  },
  { title: 'Leadership for Volunteers', level: 'advanced', status: 'draft', minutes: 300, credits: 5, price: 199 },
  {
    title: 'Legacy Fundraising (2019 edition)',
    level: 'intermediate',
    status: 'archived',
    minutes: 120,
    credits: 2,
    price: 59,
  },
  {
    title: 'Social Media for Chapters',
    level: 'introductory',
    status: 'archived',
    minutes: 45,
    credits: 0.5,
    price: 0,
  },
];

export const DEMO_RECORD_COUNTS = { members: 36, events: EVENTS.length, courses: COURSES.length } as const;

const DAY = 86_400_000;
const isoDate = (base: Date, days: number) => new Date(base.getTime() + days * DAY).toISOString().slice(0, 10);

function demoMembers(organizationId: string, today: Date) {
  return Array.from({ length: DEMO_RECORD_COUNTS.members }, (_, i) => {
    const firstName = FIRST[i % FIRST.length]!;
    const lastName = LAST[(i * 5) % LAST.length]!;
    const status = STATUSES[i % STATUSES.length]!;
    const tier: MemberTier = i % 4 === 1 ? 'premium' : 'member';
    const joinedDaysAgo = 30 + i * 97; // from a month to about ten years ago
    // Lapsed members' renewal lies in the past, active ones' in the coming year, pending have none yet.
    const renewal =
      status === 'pending'
        ? null
        : status === 'lapsed' || status === 'cancelled'
          ? isoDate(today, -20 - i * 3)
          : isoDate(today, 10 + i * 9);
    return {
      organizationId,
      firstName,
      lastName,
      email: `${firstName}.${lastName}.${i + 1}@members.demo.guildhall.local`.toLowerCase(),
      phone: i % 3 === 0 ? null : `+44 20 7946 ${String(1000 + i * 37).slice(-4)}`,
      tier,
      membershipType: TYPES[i % TYPES.length]!,
      status,
      joinedAt: status === 'pending' ? null : isoDate(today, -joinedDaysAgo),
      renewalDate: renewal,
      userId: null,
      customFields: i % 5 === 0 ? { chapter: i % 2 ? 'North' : 'South', newsletter: i % 3 !== 0 } : {},
    };
  });
}

function demoEvents(organizationId: string, today: Date) {
  const nine = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), 9);
  return EVENTS.map((event) => {
    const startsAt = new Date(nine + event.days * DAY);
    return {
      organizationId,
      title: event.title,
      description: `${event.title} for members of the Demo Association.`,
      startsAt,
      endsAt: new Date(startsAt.getTime() + event.hours * 3_600_000),
      timezone: 'Europe/London',
      location: event.location,
      onlineUrl: event.online ? 'https://meet.example.org/demo' : null,
      capacity: event.capacity,
      status: event.status,
    };
  });
}

function demoCourses(organizationId: string, today: Date) {
  return COURSES.map((course, i) => ({
    organizationId,
    title: course.title,
    description: `${course.title}: a ${course.level} course.`,
    status: course.status,
    level: course.level,
    durationMinutes: course.minutes,
    credits: course.credits,
    price: course.price,
    currency: i % 4 === 3 ? 'EUR' : 'GBP',
    publishedAt: course.status === 'draft' ? null : new Date(today.getTime() - (60 + i * 40) * DAY),
  }));
}

/** Adds the demo records that are missing, in the caller's transaction; returns how many it created. */
export async function seedDemoRecords(organizationId: string, transaction: Transaction, today = new Date()) {
  const members = demoMembers(organizationId, today);
  const events = demoEvents(organizationId, today);
  const courses = demoCourses(organizationId, today);
  const haveEmails = new Set(
    (
      await Member.findAll({
        where: { organizationId, email: { [Op.in]: members.map((m) => m.email) } },
        attributes: ['email'],
        transaction,
      })
    ).map((m) => m.email),
  );
  const haveEvents = new Set(
    (
      await Event.findAll({
        where: { organizationId, title: { [Op.in]: events.map((e) => e.title) } },
        attributes: ['title'],
        transaction,
      })
    ).map((e) => e.title),
  );
  const haveCourses = new Set(
    (
      await Course.findAll({
        where: { organizationId, title: { [Op.in]: courses.map((c) => c.title) } },
        attributes: ['title'],
        transaction,
      })
    ).map((c) => c.title),
  );
  const newMembers = members.filter((m) => !haveEmails.has(m.email));
  const newEvents = events.filter((e) => !haveEvents.has(e.title));
  const newCourses = courses.filter((c) => !haveCourses.has(c.title));
  await Member.bulkCreate(newMembers, { transaction });
  await Event.bulkCreate(newEvents, { transaction });
  await Course.bulkCreate(newCourses, { transaction });
  return { members: newMembers.length, events: newEvents.length, courses: newCourses.length };
}
