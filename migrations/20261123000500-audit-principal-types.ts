import type { MigrationContext } from '../src/shared/migrator.ts';

// The audit trail records the new principals (a SCIM directory, the identity service) as actors.
// The inline CHECK of the foundation migration got PostgreSQL's default name.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE audit_log DROP CONSTRAINT audit_log_actor_type_check;
    ALTER TABLE audit_log ADD CONSTRAINT audit_log_actor_type_check
      CHECK (actor_type IN ('user', 'api_key', 'system', 'directory', 'identity_service'));
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE audit_log DROP CONSTRAINT audit_log_actor_type_check;
    ALTER TABLE audit_log ADD CONSTRAINT audit_log_actor_type_check CHECK (actor_type IN ('user', 'api_key', 'system'));
  `);
}
