// CSV export over a server-side cursor: rows flow from PostgreSQL through the shared CSV writer to the
// response in batches, with back-pressure, so exporting 100,000 members uses the memory of a few
// hundred. The shared writer neutralises formula-leading cells.
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import QueryStream from 'pg-query-stream';
import type { Attributes, Model, Sequelize } from 'sequelize';
import { csvLine, csvWriter } from '../../shared/csv.ts';
import type { SqlQuery } from './crud.sql.ts';

const BATCH_SIZE = 500;

/** What the export needs of a resource definition. */
export interface CsvSource<M extends Model, Dto extends object> {
  toDto(record: Attributes<M>): Dto;
  csvColumns?: readonly (keyof Dto & string)[];
}

interface PgConnection {
  query(stream: QueryStream): QueryStream;
  getTypeParser(oid: number, format?: string): unknown;
}

export async function streamCsv<M extends Model, Dto extends object>(
  sequelize: Sequelize,
  source: CsvSource<M, Dto>,
  query: SqlQuery,
  output: Writable,
): Promise<void> {
  const columns = source.csvColumns ?? [];
  const manager = sequelize.connectionManager;
  const connection = (await manager.getConnection({ type: 'read' })) as PgConnection;
  // Sequelize's own type parsers, so rows look exactly as they do everywhere else.
  const types = { getTypeParser: (oid: number, format?: string) => connection.getTypeParser(oid, format) };
  try {
    const rows = connection.query(new QueryStream(query.text, query.values, { batchSize: BATCH_SIZE, types }));
    // the first batch (or the end) before a byte is written: a query the database refuses is still
    // an ordinary problem+json answer, not a connection cut after the CSV headers went out
    await once(rows, 'readable');
    await pipeline(
      rows,
      csvWriter(columns, (row: Attributes<M>) => {
        const dto = source.toDto(row) as Record<string, unknown>;
        return csvLine(columns.map((column) => dto[column]));
      }),
      output,
    );
  } catch (error) {
    // a cursor cut off mid-way (client gone): do not return a connection in an unknown state
    await manager.destroyConnection(connection).catch(() => undefined);
    throw error;
  }
  manager.releaseConnection(connection);
}
