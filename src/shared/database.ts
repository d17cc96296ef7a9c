import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { QueryTypes, Sequelize } from 'sequelize';
import type { Logger } from './logger.ts';

export interface Database {
  sequelize: Sequelize;
  /** Connection string other clients (job queue, session store) use to reach the same database. */
  url: string;
  kind: 'pglite' | 'postgresql';
  version: string;
  /** Whether the pgvector extension is installed; without it semantic search degrades to keyword search. */
  vector: boolean;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** A PostgreSQL server; when absent an embedded PGlite is started. */
  databaseUrl?: string;
  /** Where embedded PGlite persists; `memory://` keeps it in memory (tests). */
  dataDir: string;
  poolMax?: number;
  logger: Logger;
}

interface Embedded {
  url: string;
  stop(): Promise<void>;
}

/**
 * PGlite is served over the Postgres wire protocol on loopback, so Sequelize, the job queue and the
 * session store all use the same `pg` driver code as against a real server.
 */
async function startEmbedded(dataDir: string): Promise<Embedded> {
  const inMemory = dataDir === 'memory://';
  if (!inMemory) await mkdir(path.resolve(dataDir, 'pg'), { recursive: true });
  const pglite = await PGlite.create({ dataDir: inMemory ? undefined : path.resolve(dataDir, 'pg'), extensions: { vector } });
  // maxConnections defaults to 1; a pool's second connection would be refused.
  const server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0, maxConnections: 64 });
  await server.start();
  const address = (server as unknown as { server: { address(): { port: number } } }).server.address();
  return {
    url: `postgres://postgres@127.0.0.1:${address.port}/postgres`,
    async stop() {
      await server.stop();
      await pglite.close();
    },
  };
}

async function detectVector(sequelize: Sequelize, logger: Logger): Promise<boolean> {
  try {
    await sequelize.query('CREATE EXTENSION IF NOT EXISTS vector');
    return true;
  } catch (error) {
    logger.debug({ err: error }, 'pgvector extension unavailable');
    return false;
  }
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const embedded = options.databaseUrl ? undefined : await startEmbedded(options.dataDir);
  const url = options.databaseUrl ?? embedded!.url;
  const sequelize = new Sequelize(url, {
    dialect: 'postgres',
    // Formatting every statement for a logger that drops it is measurable on hot paths.
    logging: options.logger.isLevelEnabled('trace') ? (sql) => options.logger.trace({ sql }, 'sql') : false,
    pool: { max: options.poolMax ?? 10, min: 0, idle: 10_000 },
    define: { underscored: true, timestamps: true },
  });
  try {
    await sequelize.authenticate();
    const row = await sequelize.query<{ version: string }>("SELECT current_setting('server_version') AS version", { plain: true, type: QueryTypes.SELECT });
    const vectorAvailable = await detectVector(sequelize, options.logger);
    return {
      sequelize,
      url,
      kind: embedded ? 'pglite' : 'postgresql',
      version: row?.version ?? 'unknown',
      vector: vectorAvailable,
      async close() {
        await sequelize.close();
        await embedded?.stop();
      },
    };
  } catch (error) {
    await sequelize.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw error;
  }
}
