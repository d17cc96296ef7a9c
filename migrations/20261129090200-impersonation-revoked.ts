import type { MigrationContext } from '../src/shared/migrator.ts';

// A session ended because its admin or target no longer satisfies the rules it was started under
// (the target promoted, deleted or deactivated, the admin demoted, the organization suspended) says
// `revoked`, not `exited`: the admin did not end it.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE impersonation_sessions
      DROP CONSTRAINT impersonation_sessions_end_reason_check,
      ADD CONSTRAINT impersonation_sessions_end_reason_check CHECK (end_reason IN ('exited', 'expired', 'revoked'));
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    UPDATE impersonation_sessions SET end_reason = 'exited' WHERE end_reason = 'revoked';
    ALTER TABLE impersonation_sessions
      DROP CONSTRAINT impersonation_sessions_end_reason_check,
      ADD CONSTRAINT impersonation_sessions_end_reason_check CHECK (end_reason IN ('exited', 'expired'));
  `);
}
