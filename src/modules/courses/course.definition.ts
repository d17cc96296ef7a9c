import { defineResource } from '../crud/index.ts';
import { toCourseDto, type CourseDto, type CourseInput } from './course.mapper.ts';
import { Course } from './course.model.ts';

export const COURSE_STATUSES = ['draft', 'published', 'archived'] as const;
export const COURSE_LEVELS = ['introductory', 'intermediate', 'advanced'] as const;

// numeric columns come back as strings like '12.50': writing the same form keeps changed() exact
// numeric columns read back as strings like '12.50'; writing that form keeps changed() exact
const cents = (value: number) => Math.round(value * 100) / 100;

export const courseResource = defineResource<Course, CourseDto, CourseInput>({
  name: 'course',
  label: 'Course',
  path: '/api/courses',
  model: Course,
  kind: 'course',
  fields: {
    status: { type: 'string', filter: 'exact', values: COURSE_STATUSES },
    level: { type: 'string', filter: 'exact', values: COURSE_LEVELS },
    title: { type: 'string', filter: 'partial', sortable: true },
    durationMinutes: { type: 'integer', filter: 'range', sortable: true },
    credits: { type: 'decimal', filter: 'range', sortable: true },
    price: { type: 'decimal', filter: 'range', sortable: true },
    publishedAt: { type: 'datetime', filter: 'date', sortable: true },
    createdAt: { type: 'datetime', filter: 'date', sortable: true },
    updatedAt: { type: 'datetime', filter: 'date', sortable: true },
  },
  writable: ['title', 'description', 'status', 'level', 'durationMinutes', 'credits', 'price', 'currency'],
  readOnly: ['id', 'organizationId', 'publishedAt', 'createdAt', 'updatedAt'],
  defaultOrder: [{ field: 'title', direction: 'asc' }],
  toAttributes(input, { now, existing }) {
    const status = input.status ?? 'draft';
    const previous = (existing as Course | undefined)?.publishedAt ?? null;
    return {
      title: input.title,
      description: input.description ?? null,
      status,
      level: input.level ?? 'introductory',
      durationMinutes: input.durationMinutes ?? null,
      credits: cents(input.credits ?? 0).toFixed(2),
      price: cents(input.price ?? 0).toFixed(2),
      currency: input.currency ?? 'USD',
      // the first publication is remembered; later status changes keep it
      publishedAt: previous ?? (status === 'published' ? now : null),
    };
  },
  toDto: toCourseDto,
  csvColumns: [
    'id',
    'title',
    'description',
    'status',
    'level',
    'durationMinutes',
    'credits',
    'price',
    'currency',
    'publishedAt',
    'createdAt',
    'updatedAt',
  ],
});
