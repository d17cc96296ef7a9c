import { isCurrency } from '../../shared/currencies.ts';
import { errors } from '../../shared/errors.ts';
import { defineResource } from '../crud/index.ts';
import { toCourseDto, type CourseDto, type CourseInput } from './course.mapper.ts';
import { Course } from './course.model.ts';

export const COURSE_STATUSES = ['draft', 'published', 'archived'] as const;
export const COURSE_LEVELS = ['introductory', 'intermediate', 'advanced'] as const;

// numeric columns read back as strings like '12.50'; writing that form keeps changed() exact.
// Rounded on the decimal the client wrote (1.005 -> 1.01), not on its binary approximation: 1.005 * 100
// is 100.49999..., which rounded 1.005 down while 10.005 went up.
const cents = (value: number) => {
  const written = String(value);
  return written.includes('e') ? Math.round(value * 100) / 100 : Number(`${Math.round(Number(`${written}e2`))}e-2`);
};

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
    // the contract's pattern takes any three capitals: an ISO 4217 code the runtime knows, as prices in the library
    if (input.currency !== undefined && !isCurrency(input.currency))
      throw errors.validation([{ field: 'currency', message: 'must be an ISO 4217 code like EUR' }]);
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
