import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { QueryTypes, Sequelize } from 'sequelize';
import type { Logger } from './logger.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { inspectVectorSchema } from './vector-schema.ts';

export interface Database {
  sequelize: Sequelize;
  /** Connection string other clients (job queue, session store) use to reach the same database. */
  url: string;
  kind: 'pglite' | 'postgresql';
  version: string;
  /**
   * Semantic search is usable: pgvector is installed and every declared vector column exists
   * (src/shared/vector-schema.ts). Read at open, refreshed by migrateUp after it converges the vector
   * schema; without it semantic search degrades to keyword search.
   */
  vector: boolean;
  /** Embedded only: a tarball of the data directory (loadable with DatabaseOptions.loadDataDir). */
  dumpDataDir?(): Promise<Blob>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** A PostgreSQL server; when absent an embedded PGlite is started. */
  databaseUrl?: string;
  /** Where embedded PGlite persists; `memory://` keeps it in memory (tests). */
  dataDir: string;
  poolMax?: number;
  logger: Logger;
  /** Embedded only: load pgvector into PGlite (default true; false simulates a build without it). */
  pgvector?: boolean;
  /** Embedded only: start from this data-directory tarball (PGlite `dumpDataDir`) when the directory is empty. */
  loadDataDir?: Blob;
}

interface Embedded {
  url: string;
  dump(): Promise<Blob>;
  stop(): Promise<void>;
}

const EXTENDED_PROTOCOL = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map((c) => c.charCodeAt(0))); // Parse..Flush
const SYNC_OR_SIMPLE = new Set(['S', 'Q', 'X'].map((c) => c.charCodeAt(0))); // Sync, Query, Terminate

/**
 * PGLiteSocketServer queues each protocol message on its own and keeps one connection's messages
 * together only while a transaction is open. An extended-protocol exchange outside a transaction
 * (Parse, Bind, Execute ... Sync: every parameterised query of pg-boss, cursors) could then
 * interleave with another connection's and lose its unnamed statement or portal ("portal does not
 * exist") as soon as two connections query at once. Reporting the exchange as a transaction until
 * its Sync makes the queue keep it whole.
 */
function keepExtendedQueriesWhole(pglite: PGlite): void {
  let open = false;
  const inTransaction = pglite.isInTransaction.bind(pglite);
  const execStream = pglite.execProtocolRawStream.bind(pglite);
  pglite.isInTransaction = () => open || inTransaction();
  pglite.execProtocolRawStream = (message, options) => {
    const type = message[0] ?? 0;
    if (SYNC_OR_SIMPLE.has(type)) open = false;
    else if (EXTENDED_PROTOCOL.has(type)) open = true;
    return execStream(message, options);
  };
}

/**
 * PGlite is served over the Postgres wire protocol on loopback, so Sequelize, the job queue and the
 * session store all use the same `pg` driver code as against a real server.
 */
async function startEmbedded(options: DatabaseOptions): Promise<Embedded> {
  const inMemory = options.dataDir === 'memory://';
  const pgDir = path.resolve(options.dataDir, 'pg');
  if (!inMemory) await mkdir(pgDir, { recursive: true });
  const unlock = inMemory ? async () => undefined : await lockDataDir(options.dataDir);
  // A tarball only seeds an empty directory; PGlite refuses to load one over an existing cluster.
  const seed =
    options.loadDataDir && (inMemory || !existsSync(path.join(pgDir, 'PG_VERSION'))) ? options.loadDataDir : undefined;
  const pglite = await PGlite.create({
    dataDir: inMemory ? undefined : pgDir,
    // pg_trgm: the library search's typo tolerance (a server has it in contrib)
    extensions: options.pgvector === false ? { pg_trgm } : { vector, pg_trgm },
    ...(seed ? { loadDataDir: seed } : {}),
  }).catch(async (error: unknown) => {
    await unlock();
    throw error;
  });
  keepExtendedQueriesWhole(pglite);
  // maxConnections defaults to 1; a pool's second connection would be refused.
  const server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0, maxConnections: 64 });
  await server.start();
  const address = (server as unknown as { server: { address(): { port: number } } }).server.address();
  return {
    url: `postgres://postgres@127.0.0.1:${address.port}/postgres`,
    dump: () => pglite.dumpDataDir('none'),
    async stop() {
      await server.stop();
      await pglite.close();
      await unlock();
    },
  };
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const embedded = options.databaseUrl ? undefined : await startEmbedded(options);
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
    const row = await sequelize.query<{ version: string }>("SELECT current_setting('server_version') AS version", {
      plain: true,
      type: QueryTypes.SELECT,
    });
    // Read only: creating the extension is a migration's job (and, when it appears later, the
    // vector-schema step's after migrations), never a side effect of opening a connection.
    const vectorReady = (await inspectVectorSchema(sequelize)).state === 'ready';
    return {
      sequelize,
      url,
      kind: embedded ? 'pglite' : 'postgresql',
      version: row?.version ?? 'unknown',
      vector: vectorReady,
      ...(embedded ? { dumpDataDir: () => embedded.dump() } : {}),
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
