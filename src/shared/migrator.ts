import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Umzug, SequelizeStorage } from 'umzug';
import type { QueryInterface, Sequelize } from 'sequelize';
import type { Database } from './database.ts';
import type { Logger } from './logger.ts';
import { convergeVectorSchema } from './vector-schema.ts';

export interface MigrationContext {
  sequelize: Sequelize;
  queryInterface: QueryInterface;
  // No `vector` flag: a migration that skipped vector columns without pgvector would still be recorded
  // as applied and never add them later. Declare them instead (declareVectorColumn in vector-schema.ts).
}

export type Migration = (context: MigrationContext) => Promise<void>;

const migrationsDir = fileURLToPath(new URL('../../migrations/', import.meta.url));
const LOCK_KEY = 482_771_0001; // arbitrary, constant: one migrator at a time across instances

function createUmzug(db: Database, logger: Logger) {
  return new Umzug<MigrationContext>({
    migrations: {
      // *.js in the compiled build (Dockerfile), recorded under the source's name so both agree
      glob: ['*.{ts,js}', { cwd: migrationsDir, ignore: ['*.d.ts'] }],
      resolve: ({ name, path: file, context }) => ({
        name: name.replace(/\.js$/, '.ts'),
        up: async () => (await import(file!)).up(context),
        down: async () => (await import(file!)).down(context),
      }),
    },
    context: { sequelize: db.sequelize, queryInterface: db.sequelize.getQueryInterface() },
    storage: new SequelizeStorage({ sequelize: db.sequelize, tableName: 'schema_migrations' }),
    logger: {
      info: (m) => logger.info(m),
      warn: (m) => logger.warn(m),
      error: (m) => logger.error(m),
      debug: (m) => logger.debug(m),
    },
  });
}

/**
 * Applies pending migrations, then converges the vector schema (vector-schema.ts), under a session
 * advisory lock, so instances starting together do not race. Refreshes `db.vector`.
 */
export async function migrateUp(db: Database, logger: Logger): Promise<string[]> {
  const lock = new pg.Client({ connectionString: db.url });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    const applied = await createUmzug(db, logger).up();
    const vector = await convergeVectorSchema(db.sequelize, logger);
    db.vector = vector.state === 'ready';
    return applied.map((m) => m.name);
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    await lock.end();
  }
}

export async function migrateDown(db: Database, logger: Logger, to: string | 0 = 0): Promise<void> {
  await createUmzug(db, logger).down({ to });
}
