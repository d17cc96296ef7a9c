// The instants every date-time input and filter must land between. The contract's date-time
// (RFC 3339) has four-digit years and PostgreSQL has no year 0: outside years 1 to 9999 in UTC an
// instant either fails in the database (a 500) or is stored and read back as `+010000-01-01T…`,
// which breaks the contract's format on every read.
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/** The refusal's message, the same wherever a date-time enters. */
export const OUTSIDE_STORABLE_YEARS = 'must be between years 1 and 9999 (UTC)';

/** A valid instant within years 1 to 9999, UTC (an invalid Date is not). */
export function isStorableInstant(date: Date): boolean {
  const time = date.getTime();
  return time >= EARLIEST && time <= LATEST;
}
