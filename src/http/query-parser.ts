import { parse as parseFlat } from 'node:querystring';
import qs from 'qs';

const BRACKETS = /[[\]]|%5[bd]/i;

/**
 * Values of one filter in the bracketed list form (`status[]=a&status[]=b`), as many as the repeated
 * form takes (MAX_VALUES in crud.filters.ts). At qs's default, 20, the 21st turned the list into an
 * object the filter refused.
 */
const ARRAY_LIMIT = 100;

/** Express's 'extended' parser (qs, prototypes allowed as Express sets it) with room for long lists. */
function parseBracketed(query: string): Record<string, unknown> {
  return qs.parse(query, { allowPrototypes: true, arrayLimit: ARRAY_LIMIT });
}

/**
 * qs is what understands the bracketed filters (`createdAt[after]=...`, `order[lastName]=asc`), but
 * it costs several microseconds even for `page=2`. Queries without brackets, most of them, go through
 * node:querystring, which gives the same result for flat keys (repeated keys become arrays, `+` is a
 * space); the rest through qs.
 */
export function parseQuery(query: string): Record<string, unknown> {
  const parsed = BRACKETS.test(query) ? parseBracketed(query) : { ...parseFlat(query) };
  return typeof query === 'string' && query.includes('+') ? restorePlusInOffsets(parsed) : parsed;
}

/** A date-time whose offset lost its `+` to form decoding: `2026-01-01T09:00:00 01:00`. */
const SPACED_OFFSET = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) (\d{2}:\d{2})$/;

/**
 * A `+` sent unencoded in a date-time's offset (`createdAt[after]=2026-01-01T09:00:00+01:00`, as
 * curl and hand-written URLs send it) arrives as a space; no date-time holds a space there, so it is
 * read back as the `+` it was, instead of a 400 that asks for `%2B`.
 */
function restorePlusInOffsets(value: Record<string, unknown>): Record<string, unknown> {
  const restore = (item: unknown): unknown =>
    typeof item === 'string'
      ? item.replace(SPACED_OFFSET, '$1+$2')
      : Array.isArray(item)
        ? item.map(restore)
        : item && typeof item === 'object'
          ? restorePlusInOffsets(item as Record<string, unknown>)
          : item;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, restore(item)]));
}
