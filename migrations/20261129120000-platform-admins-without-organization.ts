import type { MigrationContext } from '../src/shared/migrator.ts';

// A platform admin belongs to no organization: they name one per request (Guildhall-Organization).
// The user administration let one be placed in an organization, which then scoped their requests
// without the header and locked them out when it was suspended; such placements are undone.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`UPDATE users SET organization_id = NULL WHERE role = 'ROLE_PLATFORM_ADMIN'`);
}

// Nothing to restore: the placements were never meaningful.
export async function down(): Promise<void> {}
