import type { MigrationContext } from '../src/shared/migrator.ts';

// "Require SSO" per organization: password logins of its users are refused, except its one
// break-glass client admin (who can still sign in when the IdP is down or misconfigured).
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE sso_policies (
      organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
      require_sso boolean NOT NULL DEFAULT false,
      break_glass_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query('DROP TABLE sso_policies;');
}
