// pg-boss's own tables, read for the Admin Portal: live jobs (pgboss.job) and finished ones that
// maintenance moved to pgboss.archive. Filters narrow both halves before the union.
import { QueryTypes, type Sequelize } from 'sequelize';
import type { Scope } from '../../shared/access/scope.ts';
import { Binds } from '../../shared/sql.ts';

export type JobState = 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';

export interface JobRow {
  id: string;
  name: string;
  state: JobState;
  data: Record<string, unknown> | null;
  retry_count: number;
  retry_limit: number;
  output: unknown;
  created_on: Date;
  start_after: Date;
  started_on: Date | null;
  completed_on: Date | null;
  archived: boolean;
}

export interface JobFilter {
  id?: string;
  name?: string;
  state?: JobState;
}

const COLUMNS =
  'id, name, state::text AS state, data, retry_count, retry_limit, output, created_on, start_after, started_on, completed_on';

/** pg-boss's tables are platform-wide: the scope (kind `job`) is what a platform admin may read. */
export type JobScope = Pick<Scope, 'sql'>;

function whereOf(scope: JobScope, filter: JobFilter): { sql: string; bind: unknown[] } {
  const binds = new Binds();
  const clauses = [scope.sql(binds)];
  for (const column of ['id', 'name', 'state'] as const) {
    if (filter[column] !== undefined)
      clauses.push(`${column === 'state' ? 'state::text' : column} = ${binds.add(filter[column])}`);
  }
  return { sql: `WHERE ${clauses.join(' AND ')}`, bind: binds.values };
}

export class JobAdminRepository {
  constructor(private readonly sequelize: Sequelize) {}

  async find(scope: JobScope, filter: JobFilter, limit: number, offset: number): Promise<JobRow[]> {
    const where = whereOf(scope, filter);
    const n = where.bind.length;
    return this.sequelize.query<JobRow>(
      `SELECT * FROM (
         SELECT ${COLUMNS}, false AS archived FROM pgboss.job ${where.sql}
         UNION ALL
         SELECT ${COLUMNS}, true AS archived FROM pgboss.archive ${where.sql}
       ) jobs ORDER BY created_on DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
      { bind: [...where.bind, limit, offset], type: QueryTypes.SELECT },
    );
  }

  async count(scope: JobScope, filter: JobFilter): Promise<number> {
    const where = whereOf(scope, filter);
    const [row] = await this.sequelize.query<{ total: string }>(
      `SELECT (SELECT count(*) FROM pgboss.job ${where.sql}) + (SELECT count(*) FROM pgboss.archive ${where.sql}) AS total`,
      { bind: where.bind, type: QueryTypes.SELECT },
    );
    return Number(row?.total ?? 0);
  }
}
