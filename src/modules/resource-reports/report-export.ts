// Report exports: the report's SELECT through a server-side cursor (pg-query-stream) into the shared
// streamed CSV writer, or into exceljs's streaming WorkbookWriter (rows are committed as they come, so
// memory stays flat). Both neutralise cells a spreadsheet would read as a formula.
import { PassThrough, pipeline, Writable, type Readable } from 'node:stream';
import type pg from 'pg';
import QueryStream from 'pg-query-stream';
import type { Sequelize } from 'sequelize';
import { csvLine, csvWriter, neutralise } from '../../shared/csv.ts';
import type { ReportKind } from './report.repository.ts';

export type ExportFormat = 'csv' | 'xlsx';
type Cell = string | number | boolean | null;

/** Column headers of each report's export, by column of its SELECT. */
export const EXPORT_HEADERS: Record<string, string> = {
  resource_id: 'Resource ID',
  category_id: 'Category ID',
  user_id: 'User ID',
  name: 'Name',
  email: 'Email',
  type: 'Type',
  format: 'Format',
  access_level: 'Access level',
  status: 'Status',
  archived: 'Archived',
  resource_count: 'Resources',
  resources_used: 'Resources used',
  views: 'Views',
  downloads: 'Downloads',
  unique_users: 'Unique users',
  last_at: 'Last activity',
  period_start: 'Period start',
  period_end: 'Period end',
};

const NUMERIC = new Set(['views', 'downloads', 'unique_users', 'resource_count', 'resources_used']);

const cellOf = (column: string, value: unknown): Cell => {
  if (value === null || value === undefined) return null;
  if (NUMERIC.has(column)) return Number(value);
  if (typeof value === 'boolean') return value;
  return String(value);
};

/** Rows of the cursor, as arrays in the query's column order. */
async function openCursor(sequelize: Sequelize, text: string, values: unknown[]): Promise<Readable> {
  const connection = (await sequelize.connectionManager.getConnection({ type: 'read' })) as unknown as pg.PoolClient;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    sequelize.connectionManager.releaseConnection(connection as never);
  };
  const rows = connection.query(
    new QueryStream(text, values, { rowMode: 'array', batchSize: 5000, highWaterMark: 5000 }),
  );
  rows.once('close', release);
  rows.once('error', release);
  return rows;
}

export interface ExportSource {
  text: string;
  values: unknown[];
  columns: readonly string[];
}

export async function openReportExport(
  sequelize: Sequelize,
  kind: ReportKind,
  format: ExportFormat,
  source: ExportSource,
): Promise<Readable> {
  // ExcelJS is loaded on the first export that needs it, before the cursor holds a connection
  const workbooks = format === 'xlsx' ? (await import('exceljs')).default : undefined;
  const rows = await openCursor(sequelize, source.text, source.values);
  const header = source.columns.map((column) => EXPORT_HEADERS[column] ?? column);
  if (!workbooks) {
    const line = (row: unknown[]) => csvLine(row.map((value, i) => cellOf(source.columns[i]!, value)));
    return pipeline(rows, csvWriter<unknown[]>(header, line), () => undefined);
  }
  return xlsxStream(workbooks, kind, header, source.columns, rows);
}

/** The workbook as a byte stream: one sheet named after the report, a header row, one row per row. */
function xlsxStream(
  ExcelJS: typeof import('exceljs'),
  kind: ReportKind,
  header: string[],
  columns: readonly string[],
  rows: Readable,
): Readable {
  const out = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet(kind);
  sheet.addRow(header).commit();
  const writer = new Writable({
    objectMode: true,
    highWaterMark: 1000,
    write(row: unknown[], _encoding, done) {
      // text cells only ever hold text: a leading = + - @ is neutralised, as in the CSV
      sheet
        .addRow(
          row.map((value, i) => {
            const cell = cellOf(columns[i]!, value);
            return typeof cell === 'string' ? neutralise(cell) : cell;
          }),
        )
        .commit();
      done();
    },
    final(done) {
      sheet.commit();
      workbook.commit().then(() => done(), done);
    },
  });
  pipeline(rows, writer, (error) => {
    if (error) out.destroy(error);
  });
  return out;
}
