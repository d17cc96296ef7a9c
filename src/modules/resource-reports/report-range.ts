// The date range of stats and reports: whole UTC days, both ends included.
import { errors } from '../../shared/errors.ts';

/** Inclusive UTC days as `YYYY-MM-DD`. */
export interface DayRange {
  from: string;
  to: string;
}

export const DEFAULT_RANGE_DAYS = 30;
/** Two years: a per-day series stays a few hundred rows, and a year-over-year view fits. */
export const MAX_RANGE_DAYS = 731;

export const utcDay = (date: Date): string => date.toISOString().slice(0, 10);

export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return utcDay(date);
}

export const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;

/** `to` defaults to today, `from` to 30 days ending at `to`; the contract has checked the format. */
export function parseDayRange(input: { from?: string; to?: string }, now: Date): DayRange {
  const to = input.to ?? utcDay(now);
  const from = input.from ?? addDays(to, 1 - DEFAULT_RANGE_DAYS);
  for (const [field, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (Number.isNaN(Date.parse(`${value}T00:00:00Z`)) || utcDay(new Date(`${value}T00:00:00Z`)) !== value) {
      throw errors.validation([{ field, message: 'is not a valid calendar date' }]);
    }
  }
  if (from > to) throw errors.validation([{ field: 'from', message: 'is later than to' }]);
  if (daysBetween(from, to) > MAX_RANGE_DAYS)
    throw errors.validation([{ field: 'to', message: `spans more than ${MAX_RANGE_DAYS} days from from` }]);
  return { from, to };
}
