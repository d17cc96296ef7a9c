import type { MigrationContext } from '../src/shared/migrator.ts';

// Rate-limit counters are written on every request. UNLOGGED skips the WAL (no fsync per request);
// after a crash the table is emptied, which merely restarts the current hour's counts.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query('ALTER TABLE rate_limit_counters SET UNLOGGED');
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query('ALTER TABLE rate_limit_counters SET LOGGED');
}
