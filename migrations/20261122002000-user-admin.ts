import type { MigrationContext } from '../src/shared/migrator.ts';

// Platform user administration: password tokens, impersonation sessions and the requests made in
// them, the mail outbox, the Admin Portal's session store, and indexes for the users datagrid.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    -- Only a SHA-256 of each token is kept: the token itself travels only in the e-mail.
    CREATE TABLE password_tokens (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      purpose text NOT NULL CHECK (purpose IN ('reset', 'setup')),
      token_hash text NOT NULL UNIQUE,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX password_tokens_user_idx ON password_tokens (user_id) WHERE used_at IS NULL;

    -- No foreign keys on the history tables: they must outlive the users they name.
    CREATE TABLE impersonation_sessions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      admin_id uuid NOT NULL,
      target_user_id uuid NOT NULL,
      mode text NOT NULL CHECK (mode IN ('read_only', 'act_as_user')),
      reason text,
      started_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      ended_at timestamptz,
      end_reason text CHECK (end_reason IN ('exited', 'expired')),
      CHECK (expires_at > started_at),
      CHECK ((ended_at IS NULL) = (end_reason IS NULL))
    );
    CREATE INDEX impersonation_sessions_admin_idx ON impersonation_sessions (admin_id, started_at DESC);
    CREATE INDEX impersonation_sessions_target_idx ON impersonation_sessions (target_user_id, started_at DESC);
    -- one open session per administrator; an expired one is closed before the next starts
    CREATE UNIQUE INDEX impersonation_sessions_one_open ON impersonation_sessions (admin_id) WHERE ended_at IS NULL;

    CREATE TABLE impersonation_requests (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      session_id uuid NOT NULL,
      admin_id uuid NOT NULL,
      target_user_id uuid NOT NULL,
      method text NOT NULL,
      path text NOT NULL,
      status_code integer NOT NULL,
      request_id text,
      occurred_at timestamptz NOT NULL
    );
    CREATE INDEX impersonation_requests_session_idx ON impersonation_requests (session_id, occurred_at);
    CREATE INDEX impersonation_requests_target_idx ON impersonation_requests (target_user_id, occurred_at DESC);
    CREATE INDEX impersonation_requests_admin_idx ON impersonation_requests (admin_id, occurred_at DESC);

    CREATE FUNCTION history_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
    END $$;
    CREATE TRIGGER impersonation_requests_append_only BEFORE UPDATE OR DELETE ON impersonation_requests
      FOR EACH ROW EXECUTE FUNCTION history_is_append_only();

    CREATE TABLE mail_outbox (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      template text NOT NULL,
      to_address text NOT NULL,
      user_id uuid,
      subject text NOT NULL,
      text_body text,
      html_body text,
      status text NOT NULL CHECK (status IN ('queued', 'sent', 'failed', 'outbox')),
      attempts integer NOT NULL DEFAULT 0,
      last_error text,
      provider_message_id text,
      sent_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX mail_outbox_created_idx ON mail_outbox (created_at DESC);
    CREATE INDEX mail_outbox_to_idx ON mail_outbox (lower(to_address), created_at DESC);

    -- connect-pg-simple's schema, created here rather than by the library at run time
    CREATE TABLE admin_sessions (
      sid varchar NOT NULL PRIMARY KEY,
      sess json NOT NULL,
      expire timestamp(6) NOT NULL
    );
    CREATE INDEX admin_sessions_expire_idx ON admin_sessions (expire);

    -- the datagrid's default order and its date-range filters
    CREATE INDEX users_created_idx ON users (created_at DESC, id) WHERE deleted_at IS NULL;
    CREATE INDEX users_last_login_idx ON users (last_login_at DESC NULLS LAST) WHERE deleted_at IS NULL;
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP INDEX users_last_login_idx;
    DROP INDEX users_created_idx;
    DROP TABLE admin_sessions;
    DROP TABLE mail_outbox;
    DROP TABLE impersonation_requests;
    DROP FUNCTION history_is_append_only();
    DROP TABLE impersonation_sessions;
    DROP TABLE password_tokens;
  `);
}
