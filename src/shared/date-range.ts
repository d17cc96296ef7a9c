// Bracketed date-range filters (`createdAt[after]=2026-01-01&createdAt[before]=2026-01-31`).
import { isStorableInstant, OUTSIDE_STORABLE_YEARS } from './date-time.ts';
import { errors } from './errors.ts';

/** Inclusive bounds. */
export interface DateRange {
  from?: Date;
  to?: Date;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_PART = /^(\d{4})-(\d{2})-(\d{2})/;

/** The date part names a day of the calendar: `Date` rolls 2026-11-31 over to December 1st. */
function onTheCalendar(value: string): boolean {
  const [, year, month, day] = DATE_PART.exec(value) ?? [];
  if (!year) return true; // not ISO-shaped: the parse below decides
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day);
}

/** A bare date as a bound of the whole UTC day: its first millisecond, or its last. */
export const dayBound = (day: string, bound: 'from' | 'to'): string =>
  `${day}T${bound === 'from' ? '00:00:00.000' : '23:59:59.999'}Z`;

function parseBound(value: string, parameter: string, bound: 'after' | 'before'): Date {
  const text = DATE_ONLY.test(value) ? dayBound(value, bound === 'after' ? 'from' : 'to') : value.replace(' ', 'T');
  const date = new Date(text);
  if (Number.isNaN(date.getTime()) || !onTheCalendar(value))
    throw errors.invalidFilter(`${parameter}[${bound}]`, 'is not a valid date or date-time');
  if (!isStorableInstant(date)) throw errors.invalidFilter(`${parameter}[${bound}]`, OUTSIDE_STORABLE_YEARS);
  return date;
}

/** The contract has checked the shape; this turns it into dates (undefined when absent). */
export function parseDateRange(value: unknown, parameter: string): DateRange | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { after, before } = value as { after?: string; before?: string };
  if (!after && !before) return undefined;
  const range: DateRange = {
    ...(after ? { from: parseBound(after, parameter, 'after') } : {}),
    ...(before ? { to: parseBound(before, parameter, 'before') } : {}),
  };
  if (range.from && range.to && range.from > range.to)
    throw errors.invalidFilter(parameter, 'has its after bound later than its before bound');
  return range;
}
