// The one CSV writer of every export (members and the other CRUD lists, the users datagrid, library
// reports): rows in, RFC 4180 text out in chunks of about 64 KB rather than one write per row, with
// spreadsheet formula injection neutralised. Hand-written rather than csv-stringify, which this
// replaced in the CRUD export: in paired runs of the users export the library reached 0.18-0.34 of
// COPY's rows/s against 0.31-0.68 for this writer (target 0.5; docs/decisions.md "One CSV writer").
import { Transform } from 'node:stream';

/**
 * Spreadsheet formula injection (OWASP CSV injection): a cell that starts with = + - @ or a tab/CR
 * would be evaluated by Excel or LibreOffice, so it gets a leading apostrophe and stays text.
 */
export function neutralise(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** RFC 4180: a field with a comma, quote or line break is quoted, and its quotes doubled. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** RFC 4180 ends every record, the last included, with CRLF (Excel and strict readers expect it). */
export const CSV_EOL = '\r\n';

/** A text cell as it goes into any export: neutralised, then quoted as needed. */
export const csvText = (value: string | null | undefined): string => csvField(neutralise(value ?? ''));

/** One CSV line of any cells: empty for null, JSON for objects, ISO 8601 for dates, text neutralised. */
export function csvLine(cells: readonly unknown[]): string {
  return `${cells.map(csvCell).join(',')}${CSV_EOL}`;
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  return csvText(typeof value === 'object' ? JSON.stringify(value) : String(value));
}

/** Rows (any object mode value) in, CSV text out: the header line first, then `line(row)` per row. */
export function csvWriter<R>(header: readonly string[], line: (row: R) => string): Transform {
  let pending = `${header.map(csvText).join(',')}${CSV_EOL}`;
  return new Transform({
    writableObjectMode: true,
    writableHighWaterMark: 1000,
    transform(row: R, _encoding, done) {
      pending += line(row);
      if (pending.length < 65_536) return done();
      const chunk = pending;
      pending = '';
      done(null, chunk);
    },
    flush(done) {
      done(null, pending);
    },
  });
}
