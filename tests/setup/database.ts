// Each test file gets its own database: an in-memory PGlite by default, or a fresh database on the
// PostgreSQL server named by DATABASE_URL (created here, dropped at the end).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface TestDatabase {
  databaseUrl?: string;
  dataDir: string;
  drop(): Promise<void>;
}

/** `persistent`: survives closing the app (restart tests); PGlite then keeps it in a temporary directory. */
export async function createTestDatabase(options: { persistent?: boolean } = {}): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl && options.persistent) {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'guildhall-test-'));
    return { dataDir, drop: () => rm(dataDir, { recursive: true, force: true }) };
  }
  if (!serverUrl) return { dataDir: 'memory://', drop: async () => undefined };
  const name = `guildhall_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    dataDir: 'memory://',
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
