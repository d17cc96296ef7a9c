// pg-boss's own tables, read for the Admin Portal: live jobs (pgboss.job) and finished ones that
// maintenance moved to pgboss.archive. Filters narrow both halves before the union.
import { QueryTypes, type Sequelize } from 'sequelize';

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

const COLUMNS = 'id, name, state::text AS state, data, retry_count, retry_limit, output, created_on, start_after, started_on, completed_on';

function whereOf(filter: JobFilter): { sql: string; bind: unknown[] } {
  const bind: unknown[] = [];
  const clauses = (['id', 'name', 'state'] as const).flatMap((column) => {
    if (filter[column] === undefined) return [];
    bind.push(filter[column]);
    return [`${column === 'state' ? 'state::text' : column} = $${bind.length}`];
  });
  return { sql: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', bind };
}

export class JobAdminRepository {
  constructor(private readonly sequelize: Sequelize) {}

  async find(filter: JobFilter, limit: number, offset: number): Promise<JobRow[]> {
    const where = whereOf(filter);
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

  async count(filter: JobFilter): Promise<number> {
    const where = whereOf(filter);
    const [row] = await this.sequelize.query<{ total: string }>(
      `SELECT (SELECT count(*) FROM pgboss.job ${where.sql}) + (SELECT count(*) FROM pgboss.archive ${where.sql}) AS total`,
      { bind: where.bind, type: QueryTypes.SELECT },
    );
    return Number(row?.total ?? 0);
  }
}
