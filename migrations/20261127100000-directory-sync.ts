import type { MigrationContext } from '../src/shared/migrator.ts';

// Directory sync. A directory belongs to one organization and is either our own SCIM 2.0 server
// (`scim`: Entra ID or Okta provision into /scim/v2 with the directory's bearer token, stored as a
// hash) or one the identity service brokers (`identity_service`: its webhooks and a pull sync feed the
// same tables). Directory users and groups are the directory's view (the SCIM resources as last
// written, with a version for ETags); each directory user is linked to the Guildhall user it manages.
// Inbound identity-service webhook events are remembered by id so a replay is acknowledged and ignored.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE directories (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      provider text NOT NULL CHECK (provider IN ('scim', 'identity_service')),
      external_id text CHECK (length(external_id) <= 200),
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
      token_hash text UNIQUE,
      token_prefix text,
      token_created_at timestamptz,
      hard_delete boolean NOT NULL DEFAULT false,
      send_welcome boolean NOT NULL DEFAULT true,
      group_roles jsonb NOT NULL,
      default_role text NOT NULL DEFAULT 'ROLE_MEMBER'
        CHECK (default_role IN ('ROLE_MEMBER', 'ROLE_CLIENT_USER', 'ROLE_CLIENT_ADMIN')),
      last_sync_at timestamptz,
      last_error text,
      last_error_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX directories_org_idx ON directories (organization_id, created_at, id);
    CREATE UNIQUE INDEX directories_external_idx ON directories (external_id) WHERE external_id IS NOT NULL;

    CREATE TABLE directory_users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      directory_id uuid NOT NULL REFERENCES directories(id) ON DELETE CASCADE,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      external_id text CHECK (length(external_id) <= 500),
      user_name text NOT NULL CHECK (length(user_name) BETWEEN 1 AND 320),
      given_name text CHECK (length(given_name) <= 200),
      family_name text CHECK (length(family_name) <= 200),
      email text CHECK (length(email) <= 320),
      active boolean NOT NULL DEFAULT true,
      resource jsonb NOT NULL DEFAULT '{}',
      version integer NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX directory_users_user_name_idx ON directory_users (directory_id, lower(user_name));
    CREATE UNIQUE INDEX directory_users_external_idx ON directory_users (directory_id, external_id) WHERE external_id IS NOT NULL;
    CREATE INDEX directory_users_list_idx ON directory_users (directory_id, created_at, id);
    CREATE INDEX directory_users_user_idx ON directory_users (user_id);

    CREATE TABLE directory_groups (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      directory_id uuid NOT NULL REFERENCES directories(id) ON DELETE CASCADE,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      external_id text CHECK (length(external_id) <= 500),
      display_name text NOT NULL CHECK (length(display_name) BETWEEN 1 AND 256),
      version integer NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX directory_groups_name_idx ON directory_groups (directory_id, lower(display_name));
    CREATE UNIQUE INDEX directory_groups_external_idx ON directory_groups (directory_id, external_id) WHERE external_id IS NOT NULL;

    CREATE TABLE directory_group_members (
      group_id uuid NOT NULL REFERENCES directory_groups(id) ON DELETE CASCADE,
      directory_user_id uuid NOT NULL REFERENCES directory_users(id) ON DELETE CASCADE,
      PRIMARY KEY (group_id, directory_user_id)
    );
    CREATE INDEX directory_group_members_user_idx ON directory_group_members (directory_user_id);

    CREATE TABLE directory_sync_runs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      directory_id uuid NOT NULL REFERENCES directories(id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
      users_synced integer NOT NULL DEFAULT 0,
      groups_synced integer NOT NULL DEFAULT 0,
      error text,
      started_at timestamptz,
      finished_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX directory_sync_runs_idx ON directory_sync_runs (directory_id, created_at DESC);

    CREATE TABLE idp_webhook_events (
      id text PRIMARY KEY CHECK (length(id) <= 200),
      event text NOT NULL,
      payload jsonb NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      processed_at timestamptz,
      error text
    );
    CREATE INDEX idp_webhook_events_received_idx ON idp_webhook_events (received_at);

    ALTER TABLE users ADD COLUMN directory_id uuid REFERENCES directories(id) ON DELETE SET NULL;
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE users DROP COLUMN directory_id;
    DROP TABLE idp_webhook_events; DROP TABLE directory_sync_runs; DROP TABLE directory_group_members;
    DROP TABLE directory_groups; DROP TABLE directory_users; DROP TABLE directories;
  `);
}
