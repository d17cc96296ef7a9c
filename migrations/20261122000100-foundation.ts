import type { MigrationContext } from '../src/shared/migrator.ts';

// Tenants, platform users, API keys, the append-only audit trail and rate-limit counters.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE organizations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
      plan text NOT NULL DEFAULT 'standard' CHECK (plan IN ('standard', 'professional', 'enterprise')),
      environment text NOT NULL DEFAULT 'production' CHECK (environment IN ('production', 'sandbox')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid REFERENCES organizations(id) ON DELETE RESTRICT,
      first_name text NOT NULL,
      last_name text NOT NULL,
      email text NOT NULL,
      phone text,
      role text NOT NULL CHECK (role IN ('ROLE_MEMBER', 'ROLE_CLIENT_USER', 'ROLE_CLIENT_ADMIN',
                                         'ROLE_SPONSOR_USER', 'ROLE_SPONSOR_ADMIN', 'ROLE_PLATFORM_ADMIN')),
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive', 'suspended', 'pending')),
      password_hash text,
      mfa_secret text,
      mfa_enabled_at timestamptz,
      last_login_at timestamptz,
      deleted_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      -- every user but a platform admin belongs to exactly one organization
      CHECK (organization_id IS NOT NULL OR role = 'ROLE_PLATFORM_ADMIN')
    );
    -- unique across the platform, case-insensitive; a soft-deleted account frees its address
    CREATE UNIQUE INDEX users_email_unique ON users (lower(email)) WHERE deleted_at IS NULL;
    CREATE INDEX users_organization_idx ON users (organization_id);

    CREATE TABLE api_keys (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL,
      prefix text NOT NULL,
      key_hash text NOT NULL UNIQUE,
      created_by_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      last_used_at timestamptz,
      revoked_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX api_keys_organization_idx ON api_keys (organization_id, created_at DESC);

    -- No foreign keys: the trail must outlive the rows it talks about.
    CREATE TABLE audit_log (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      occurred_at timestamptz NOT NULL DEFAULT now(),
      organization_id uuid,
      actor_type text NOT NULL CHECK (actor_type IN ('user', 'api_key', 'system')),
      actor_id text,
      impersonator_id uuid,
      action text NOT NULL,
      target_type text NOT NULL,
      target_id text,
      before jsonb,
      after jsonb,
      request_id text
    );
    CREATE INDEX audit_log_target_idx ON audit_log (target_type, target_id, occurred_at DESC);
    CREATE INDEX audit_log_actor_idx ON audit_log (actor_id, occurred_at DESC);
    CREATE INDEX audit_log_organization_idx ON audit_log (organization_id, occurred_at DESC);

    CREATE FUNCTION audit_log_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'audit_log is append-only' USING ERRCODE = 'insufficient_privilege';
    END $$;
    CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
      FOR EACH ROW EXECUTE FUNCTION audit_log_is_append_only();

    CREATE TABLE rate_limit_counters (
      key text NOT NULL,
      window_start timestamptz NOT NULL,
      hits integer NOT NULL,
      PRIMARY KEY (key, window_start)
    );
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP TABLE rate_limit_counters;
    DROP TABLE audit_log;
    DROP FUNCTION audit_log_is_append_only();
    DROP TABLE api_keys;
    DROP TABLE users;
    DROP TABLE organizations;
  `);
}
