// CSV export of the users datagrid: a server-side cursor (pg-query-stream) piped through csv-stringify,
// so memory stays flat whatever the number of rows, and a slow client slows the cursor down.
import { pipeline, Transform, type Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type pg from 'pg';
import QueryStream from 'pg-query-stream';
import type { Sequelize } from 'sequelize';
import type { Role } from '../../shared/access/roles.ts';
import { Binds } from '../../shared/sql.ts';
import { ROLE_LABELS, STATUS_LABELS } from './user.labels.ts';
import type { UserStatus } from './user.model.ts';
import { orderOf, whereOf, type UserListFilter, type UserSort } from './user-query.repository.ts';

export const CSV_COLUMNS = ['ID', 'Name', 'Email', 'Role', 'Organization', 'Status', 'Last Login', 'Created'] as const;

type ExportRow = [string, string, string, Role, string | null, UserStatus, Date | null, Date];

/** The export's SELECT; the benchmark COPYs exactly this query as its baseline. */
export function exportQuery(filter: UserListFilter, sort: UserSort): { text: string; values: unknown[] } {
  const binds = new Binds();
  const where = whereOf(filter, binds);
  const text = `SELECT u.id, u.first_name || ' ' || u.last_name, u.email, u.role, o.name, u.status, u.last_login_at, u.created_at
    FROM users u LEFT JOIN organizations o ON o.id = u.organization_id WHERE ${where} ORDER BY ${orderOf(sort)}`;
  return { text, values: binds.values };
}

/**
 * Spreadsheet formula injection (OWASP CSV injection): a cell that starts with = + - @ or a tab/CR
 * would be evaluated by Excel or LibreOffice, so it gets a leading apostrophe and stays text.
 */
export function neutralise(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

const toCells = (row: ExportRow): string[] => [
  row[0],
  neutralise(row[1]),
  neutralise(row[2]),
  ROLE_LABELS[row[3]],
  neutralise(row[4] ?? ''),
  STATUS_LABELS[row[5]],
  row[6]?.toISOString() ?? '',
  row[7].toISOString(),
];

/**
 * Opens the export on a connection borrowed from the pool and returns the CSV byte stream (header
 * row first). Destroying the stream (client gone) closes the cursor and returns the connection.
 */
export async function openUserExport(sequelize: Sequelize, filter: UserListFilter, sort: UserSort): Promise<Readable> {
  const { text, values } = exportQuery(filter, sort);
  const connection = (await sequelize.connectionManager.getConnection({ type: 'read' })) as unknown as pg.PoolClient;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    sequelize.connectionManager.releaseConnection(connection as never);
  };
  const rows = connection.query(new QueryStream(text, values, { rowMode: 'array', batchSize: 1000, highWaterMark: 1000 }));
  rows.once('close', release);
  const cells = new Transform({
    objectMode: true,
    transform(row: ExportRow, _encoding, done) {
      done(null, toCells(row));
    },
  });
  const csv = stringify({ header: true, columns: [...CSV_COLUMNS], eof: true });
  return pipeline(rows, cells, csv, (error) => {
    if (error) release();
  });
}
