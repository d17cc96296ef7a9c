import type { MigrationContext } from '../src/shared/migrator.ts';

// Single sign-on. A connection belongs to one organization and speaks one protocol: SAML 2.0 or OIDC
// directly, or the identity service (a broker) for it. Its non-secret settings are jsonb (they differ by
// protocol); its one secret (an OIDC client secret) is sealed with APP_SECRET. A login in flight is a
// sealed single-use state record (the SSO surface has no session); a finished login hands the browser a
// one-time code that the app exchanges for its token, so no token ever sits in a URL. SAML assertion ids
// are remembered until they expire, so a replayed response is refused. The identity service's platform
// settings are one row, secrets sealed.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE sso_connections (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      protocol text NOT NULL CHECK (protocol IN ('saml', 'oidc', 'identity_service')),
      status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'inactive')),
      domains text[] NOT NULL DEFAULT '{}',
      settings jsonb NOT NULL DEFAULT '{}',
      secret_sealed text,
      group_roles jsonb NOT NULL DEFAULT '[]',
      default_role text NOT NULL DEFAULT 'ROLE_MEMBER'
        CHECK (default_role IN ('ROLE_MEMBER', 'ROLE_CLIENT_USER', 'ROLE_CLIENT_ADMIN')),
      allow_idp_initiated boolean NOT NULL DEFAULT false,
      create_members boolean NOT NULL DEFAULT true,
      last_tested_at timestamptz,
      last_test_ok boolean,
      last_test_detail text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX sso_connections_org_idx ON sso_connections (organization_id, created_at, id);
    CREATE INDEX sso_connections_domains_idx ON sso_connections USING gin (domains);

    CREATE TABLE sso_login_states (
      id text PRIMARY KEY,
      connection_id uuid NOT NULL REFERENCES sso_connections(id) ON DELETE CASCADE,
      sealed text NOT NULL,
      expires_at timestamptz NOT NULL,
      consumed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX sso_login_states_expiry_idx ON sso_login_states (expires_at);

    CREATE TABLE sso_handoffs (
      id text PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      connection_id uuid REFERENCES sso_connections(id) ON DELETE SET NULL,
      mfa boolean NOT NULL DEFAULT false,
      expires_at timestamptz NOT NULL,
      consumed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE sso_replay_cache (
      key text PRIMARY KEY,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX sso_replay_cache_expiry_idx ON sso_replay_cache (expires_at);

    CREATE TABLE identity_service_settings (
      id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
      api_key_sealed text,
      api_key_last4 text,
      client_id text,
      redirect_uri text,
      webhook_secret_sealed text,
      webhook_secret_last4 text,
      default_connection text,
      updated_by_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    ALTER TABLE users
      ADD COLUMN department text CHECK (length(department) <= 200),
      ADD COLUMN job_title text CHECK (length(job_title) <= 200),
      ADD COLUMN sso_connection_id uuid REFERENCES sso_connections(id) ON DELETE SET NULL,
      ADD COLUMN sso_subject text;
    CREATE UNIQUE INDEX users_sso_subject_idx ON users (sso_connection_id, sso_subject) WHERE sso_subject IS NOT NULL;
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE users DROP COLUMN department, DROP COLUMN job_title, DROP COLUMN sso_connection_id, DROP COLUMN sso_subject;
    DROP TABLE identity_service_settings; DROP TABLE sso_replay_cache; DROP TABLE sso_handoffs;
    DROP TABLE sso_login_states; DROP TABLE sso_connections;
  `);
}
