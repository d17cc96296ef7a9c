// Members, events and courses for tests, created directly through the models (fast).
import { randomUUID } from 'node:crypto';
import type { InferCreationAttributes } from 'sequelize';
import { Course } from '../../src/modules/courses/course.model.ts';
import { Event } from '../../src/modules/events/event.model.ts';
import { Member } from '../../src/modules/members/member.model.ts';

type Overrides<M extends Member | Event | Course> = Partial<InferCreationAttributes<M>>;

/** A factory member's fields besides its organization, name and e-mail (for bulk inserts too). */
export const memberDefaults = {
  phone: null,
  tier: 'member',
  membershipType: null,
  status: 'active',
  joinedAt: null,
  renewalDate: null,
  userId: null,
  customFields: {},
} as const;

export async function buildMember(organizationId: string, overrides: Overrides<Member> = {}): Promise<Member> {
  const suffix = randomUUID().slice(0, 8);
  return Member.create({
    organizationId,
    firstName: 'Pat',
    lastName: `Member-${suffix}`,
    email: `member-${suffix}@example.test`,
    ...memberDefaults,
    ...overrides,
  });
}

export async function buildEvent(organizationId: string, overrides: Overrides<Event> = {}): Promise<Event> {
  return Event.create({
    organizationId,
    title: `Event ${randomUUID().slice(0, 8)}`,
    description: null,
    startsAt: new Date('2026-06-01T09:00:00Z'),
    endsAt: new Date('2026-06-01T17:00:00Z'),
    timezone: 'UTC',
    location: null,
    onlineUrl: null,
    capacity: null,
    status: 'draft',
    ...overrides,
  });
}

export async function buildCourse(organizationId: string, overrides: Overrides<Course> = {}): Promise<Course> {
  return Course.create({
    organizationId,
    title: `Course ${randomUUID().slice(0, 8)}`,
    description: null,
    status: 'draft',
    level: 'introductory',
    durationMinutes: null,
    credits: '0.00',
    price: '0.00',
    currency: 'USD',
    publishedAt: null,
    ...overrides,
  });
}

/** Many members in one statement (index tests): 70% active, last names cycling through `names`. */
export async function seedMembers(
  sequelize: import('sequelize').Sequelize,
  organizationId: string,
  count: number,
  names: readonly string[] = ['Adams', 'Baker', 'Clark', 'Davis', 'Evans', 'Smith', 'Young'],
): Promise<void> {
  await sequelize.query(
    `INSERT INTO members (organization_id, first_name, last_name, email, status, tier, joined_at, created_at, updated_at)
     SELECT $1, 'First' || g, ($2::text[])[1 + g % cardinality($2::text[])], 'seed' || g || '@example.test',
            (ARRAY['active', 'active', 'active', 'active', 'active', 'active', 'active', 'pending', 'lapsed', 'cancelled'])[1 + g % 10],
            CASE WHEN g % 10 = 0 THEN 'premium' ELSE 'member' END,
            date '2020-01-01' + (g % 1500), now(), now()
       FROM generate_series(1, $3::int) g`,
    { bind: [organizationId, names, count] },
  );
}
