// A fresh database on the PostgreSQL server for one benchmark, migrated with the project's migrations.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase } from '../../src/shared/database.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { migrateUp } from '../../src/shared/migrator.ts';

export const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface BenchDatabase {
  url: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

export async function createBenchDatabase(): Promise<BenchDatabase> {
  const name = `guildhall_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const logger = createLogger('warn');
  const db = await openDatabase({ databaseUrl: url.toString(), dataDir: 'memory://', logger });
  await migrateUp(db, logger);
  await db.close();
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  return {
    url: url.toString(),
    pool,
    async drop() {
      await pool.end();
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
