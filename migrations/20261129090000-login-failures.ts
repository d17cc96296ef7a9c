import type { MigrationContext } from '../src/shared/migrator.ts';

// Failed logins with their time, so the login throttle counts those of the last
// LOGIN_THROTTLE_SECONDS (a sliding window) instead of a clock-aligned window's total. A logged
// table: a lockout must survive a crash as well as a restart.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE login_failures (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL,
      failed_at timestamptz NOT NULL
    );
    CREATE INDEX login_failures_key_failed_at ON login_failures (key, failed_at);
    CREATE INDEX login_failures_failed_at ON login_failures (failed_at);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query('DROP TABLE login_failures;');
}
