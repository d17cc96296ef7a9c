// Plain parameterised SQL on Sequelize's own connection pool, for hot paths and repository queries
// where building model instances (and Sequelize's per-query option cloning) would dominate the cost.
// Same pool, same connections, same transactions: only the ORM layer is skipped.
import type { Sequelize, Transaction } from 'sequelize';

interface PgClient {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

export interface SqlResult<T> {
  rows: T[];
  rowCount: number;
}

export class Sql {
  constructor(private readonly sequelize: Sequelize) {}

  async query<T>(text: string, values: unknown[] = [], transaction?: Transaction | null): Promise<SqlResult<T>> {
    if (transaction) return this.run<T>((transaction as unknown as { connection: PgClient }).connection, text, values);
    const manager = this.sequelize.connectionManager;
    const client = (await manager.getConnection({ type: 'write' })) as PgClient;
    try {
      return await this.run<T>(client, text, values);
    } finally {
      manager.releaseConnection(client);
    }
  }

  async rows<T>(text: string, values: unknown[] = [], transaction?: Transaction | null): Promise<T[]> {
    return (await this.query<T>(text, values, transaction)).rows;
  }

  async one<T>(text: string, values: unknown[] = [], transaction?: Transaction | null): Promise<T | undefined> {
    return (await this.query<T>(text, values, transaction)).rows[0];
  }

  private async run<T>(client: PgClient, text: string, values: unknown[]): Promise<SqlResult<T>> {
    const result = await client.query(text, values);
    return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
  }
}

/** Escapes LIKE/ILIKE wildcards so user input matches literally (PostgreSQL's default escape is `\\`). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `%text%` for a literal substring match. */
export const containing = (text: string): string => `%${escapeLike(text)}%`;

/** Collects bind values and hands out their `$n` placeholders, so clauses can be composed in any order. */
export class Binds {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
