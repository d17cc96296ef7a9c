import type { MigrationContext } from '../src/shared/migrator.ts';

// Resumable (tus) uploads: who started one, for which organization, how far it got. The bytes of an
// unfinished upload sit in LIBRARY_UPLOADS_DIR; a finished one's at `temp_key` in storage until the
// resource service takes it (the row is deleted then). Unfinished or untaken uploads expire.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE resource_uploads (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      -- a user or an API key (the principal's type and id), so an upload is its creator's alone
      creator_type text NOT NULL CHECK (creator_type IN ('user', 'api_key')),
      creator_id text NOT NULL CHECK (length(creator_id) <= 64),
      file_name text NOT NULL CHECK (length(file_name) BETWEEN 1 AND 255),
      size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
      offset_bytes bigint NOT NULL DEFAULT 0 CHECK (offset_bytes >= 0),
      status text NOT NULL DEFAULT 'receiving' CHECK (status IN ('receiving', 'finished')),
      temp_key text,
      sha256 char(64),
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      CONSTRAINT resource_uploads_finished_has_file CHECK ((status = 'finished') = (temp_key IS NOT NULL AND sha256 IS NOT NULL))
    );
    CREATE INDEX resource_uploads_expiry_idx ON resource_uploads (expires_at);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query('DROP TABLE IF EXISTS resource_uploads');
}
