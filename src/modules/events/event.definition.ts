import { errors } from '../../shared/errors.ts';
import { defineResource } from '../crud/index.ts';
import { toEventDto, type EventDto, type EventInput } from './event.mapper.ts';
import { Event } from './event.model.ts';

export const EVENT_STATUSES = ['draft', 'published', 'cancelled'] as const;

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const eventResource = defineResource<Event, EventDto, EventInput>({
  name: 'event',
  label: 'Event',
  path: '/api/events',
  model: Event,
  kind: 'event',
  fields: {
    status: { type: 'string', filter: 'exact', values: EVENT_STATUSES },
    title: { type: 'string', filter: 'partial', sortable: true },
    startsAt: { type: 'datetime', filter: 'date', sortable: true },
    endsAt: { type: 'datetime', filter: 'date', sortable: true },
    capacity: { type: 'integer', filter: 'range', sortable: true },
    createdAt: { type: 'datetime', filter: 'date', sortable: true },
    updatedAt: { type: 'datetime', filter: 'date', sortable: true },
  },
  writable: ['title', 'description', 'startsAt', 'endsAt', 'timezone', 'location', 'onlineUrl', 'capacity', 'status'],
  readOnly: ['id', 'organizationId', 'createdAt', 'updatedAt'],
  defaultOrder: [{ field: 'startsAt', direction: 'asc' }],
  toAttributes(input) {
    const startsAt = new Date(input.startsAt);
    const endsAt = new Date(input.endsAt);
    const timezone = input.timezone ?? 'UTC';
    const problems = [
      ...(Number.isNaN(startsAt.getTime()) ? [{ field: 'startsAt', message: 'is not a valid date-time' }] : []),
      ...(Number.isNaN(endsAt.getTime()) ? [{ field: 'endsAt', message: 'is not a valid date-time' }] : []),
      ...(endsAt < startsAt ? [{ field: 'endsAt', message: 'must not be before startsAt' }] : []),
      ...(isTimeZone(timezone)
        ? []
        : [{ field: 'timezone', message: 'is not an IANA time zone name (e.g. Europe/Paris)' }]),
    ];
    if (problems.length) throw errors.validation(problems);
    return {
      title: input.title,
      description: input.description ?? null,
      startsAt,
      endsAt,
      timezone,
      location: input.location ?? null,
      onlineUrl: input.onlineUrl ?? null,
      capacity: input.capacity ?? null,
      status: input.status ?? 'draft',
    };
  },
  toDto: toEventDto,
  csvColumns: [
    'id',
    'title',
    'description',
    'startsAt',
    'endsAt',
    'timezone',
    'location',
    'onlineUrl',
    'capacity',
    'status',
    'createdAt',
    'updatedAt',
  ],
});
