import { isStorableInstant, OUTSIDE_STORABLE_YEARS } from '../../shared/date-time.ts';
import { errors } from '../../shared/errors.ts';
import { defineResource } from '../crud/index.ts';
import { toEventDto, type EventDto, type EventInput } from './event.mapper.ts';
import { Event } from './event.model.ts';

export const EVENT_STATUSES = ['draft', 'published', 'cancelled'] as const;

/**
 * The IANA spelling of a time zone name (`europe/paris` -> `Europe/Paris`, `utc` -> `UTC`), or
 * undefined when there is no such zone. Intl matches names in any case but IANA names are
 * case-sensitive, so what is stored and read back is the IANA spelling.
 */
function canonicalTimeZone(name: string): string | undefined {
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  // Node 20's ICU answers an alias with its target (Asia/Kolkata -> Asia/Calcutta, Etc/UTC -> UTC):
  // only the spelling is corrected, a zone the client named is never renamed
  return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
}

/** A date-time the contract accepted, as stored: refused when PostgreSQL or the contract cannot carry it. */
function instantProblem(field: 'startsAt' | 'endsAt', date: Date): Array<{ field: string; message: string }> {
  if (Number.isNaN(date.getTime())) return [{ field, message: 'is not a valid date-time' }];
  return isStorableInstant(date) ? [] : [{ field, message: OUTSIDE_STORABLE_YEARS }];
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
    const timezone = canonicalTimeZone(input.timezone ?? 'UTC');
    const problems = [
      ...instantProblem('startsAt', startsAt),
      ...instantProblem('endsAt', endsAt),
      ...(endsAt < startsAt ? [{ field: 'endsAt', message: 'must not be before startsAt' }] : []),
      ...(timezone ? [] : [{ field: 'timezone', message: 'is not an IANA time zone name (e.g. Europe/Paris)' }]),
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
