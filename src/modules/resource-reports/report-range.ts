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

/**
 * `to` defaults to today, `from` to 30 days ending at `to`; the contract has checked the format. A
 * wrong range read from a query is a filter's refusal (`invalid_filter`), as every read's query is;
 * from an export's body, a field's (`validation_failed`).
 */
export function parseDayRange(input: { from?: string; to?: string }, now: Date, source: 'query' | 'body'): DayRange {
  const refuse = (field: string, message: string) =>
    source === 'query' ? errors.invalidFilter(field, message) : errors.validation([{ field, message }]);
  const to = input.to ?? utcDay(now);
  const from = input.from ?? addDays(to, 1 - DEFAULT_RANGE_DAYS);
  for (const [field, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (Number.isNaN(Date.parse(`${value}T00:00:00Z`)) || utcDay(new Date(`${value}T00:00:00Z`)) !== value) {
      throw refuse(field, 'is not a valid calendar date');
    }
  }
  if (from > to) throw refuse('from', 'is later than to');
  if (daysBetween(from, to) > MAX_RANGE_DAYS) throw refuse('to', `spans more than ${MAX_RANGE_DAYS} days from from`);
  return { from, to };
}
