// Plain parameterised SQL on Sequelize's own connection pool, for hot paths and repository queries
// where building model instances (and Sequelize's per-query option cloning) would dominate the cost.
// Same pool, same connections, same transactions: only the ORM layer is skipped.
import type { Sequelize, Transaction } from 'sequelize';
import { sha256 } from './crypto.ts';

/** A text, or a named statement (its values inside, as pg takes it). */
type Statement = string | { name: string; text: string; values: unknown[] };

interface PgClient {
  query(statement: Statement, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

export interface SqlOptions {
  /**
   * Whether statements marked as repeated may be prepared by name (see `repeated`): true on a
   * PostgreSQL server (DATABASE_PREPARED_STATEMENTS=false for a pooler in transaction mode that
   * cannot keep them), false on embedded PGlite, where every pooled connection shares PGlite's
   * one session and a name prepared by one connection would collide with another's.
   */
  namedStatements: boolean;
}

/** Statement names handed out at most: a caller that marked a varying text as repeated cannot fill the server's memory. */
const MAX_NAMED_STATEMENTS = 200;

export interface SqlResult<T> {
  rows: T[];
  rowCount: number;
}

export class Sql {
  private readonly names = new Map<string, string>();

  constructor(
    private readonly sequelize: Sequelize,
    private readonly options: SqlOptions = { namedStatements: false },
  ) {}

  async query<T>(text: string, values: unknown[] = [], transaction?: Transaction | null): Promise<SqlResult<T>> {
    if (transaction) return this.run<T>((transaction as unknown as { connection: PgClient }).connection, text, values);
    return this.onPooledConnection<T>(text, values);
  }

  async rows<T>(text: string, values: unknown[] = [], transaction?: Transaction | null): Promise<T[]> {
    return (await this.query<T>(text, values, transaction)).rows;
  }

  async one<T>(text: string, values: unknown[] = [], transaction?: Transaction | null): Promise<T | undefined> {
    return (await this.query<T>(text, values, transaction)).rows[0];
  }

  /**
   * One row of a statement whose text is one of a small fixed set and is run very often (a record
   * by id). On a PostgreSQL server it is prepared once per pooled connection and executed by name
   * afterwards, so neither the server nor the driver parses and describes it again on every request
   * (measured: about a sixth of the app's CPU on GET /api/members/{id}). Otherwise as `one`.
   */
  async repeated<T>(text: string, values: unknown[]): Promise<T | undefined> {
    const name = this.nameOf(text);
    return (await this.onPooledConnection<T>(name ? { name, text, values } : text, values)).rows[0];
  }

  /** Whether `repeated` statements are prepared by name here. */
  get preparesStatements(): boolean {
    return this.options.namedStatements;
  }

  private nameOf(text: string): string | undefined {
    if (!this.options.namedStatements) return undefined;
    let name = this.names.get(text);
    if (!name && this.names.size < MAX_NAMED_STATEMENTS) {
      name = `gh_${sha256(text).slice(0, 24)}`;
      this.names.set(text, name);
    }
    return name;
  }

  private async onPooledConnection<T>(statement: Statement, values: unknown[]): Promise<SqlResult<T>> {
    const manager = this.sequelize.connectionManager;
    const client = (await manager.getConnection({ type: 'write' })) as PgClient;
    try {
      return await this.run<T>(client, statement, values);
    } finally {
      manager.releaseConnection(client);
    }
  }

  private async run<T>(client: PgClient, statement: Statement, values: unknown[]): Promise<SqlResult<T>> {
    const result = await client.query(statement, values);
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
