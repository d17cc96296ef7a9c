import type { MigrationContext } from '../src/shared/migrator.ts';

// Organizations become managed tenants: a platform admin can suspend one (its users and keys are
// refused) and reactivate it. suspended_at says since when; the audit trail says who and why.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE organizations
      ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
      ADD COLUMN suspended_at timestamptz,
      ADD CONSTRAINT organizations_suspension_consistent CHECK ((status = 'suspended') = (suspended_at IS NOT NULL));
    CREATE INDEX organizations_created_idx ON organizations (created_at DESC, id DESC);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP INDEX organizations_created_idx;
    ALTER TABLE organizations DROP CONSTRAINT organizations_suspension_consistent, DROP COLUMN suspended_at, DROP COLUMN status;
  `);
}
