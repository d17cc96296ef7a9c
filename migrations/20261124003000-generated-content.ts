import type { MigrationContext } from '../src/shared/migrator.ts';

// Podcasts and infographics generated from a library resource (docs/ai.md). One record per
// (resource, kind): regenerating reuses it. The request's state (status, progress, error, run) and the
// last complete output (files, transcript, duration, voices, alt text, the version it was made from)
// live side by side, so a failed or running regeneration never hides nor half-replaces the last good files.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE generated_content (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      resource_id uuid NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('podcast', 'infographic')),
      status text NOT NULL CHECK (status IN ('queued', 'running', 'ready', 'failed', 'stale')),
      progress integer NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
      error text CHECK (length(error) <= 2000),
      -- the request being worked on: a job whose run id is no longer this one stops without writing
      run_id uuid NOT NULL,
      requested_version_id uuid REFERENCES resource_versions(id) ON DELETE SET NULL,
      requested_at timestamptz NOT NULL DEFAULT now(),
      -- the last complete output
      source_version_id uuid REFERENCES resource_versions(id) ON DELETE SET NULL,
      source_version integer CHECK (source_version >= 1),
      storage_keys jsonb NOT NULL DEFAULT '{}',
      transcript jsonb,
      duration_seconds numeric(10, 2) CHECK (duration_seconds >= 0),
      voices jsonb,
      alt_text text CHECK (length(alt_text) <= 4000),
      summary jsonb,
      script_source text CHECK (script_source IN ('composed', 'claude')),
      generated_at timestamptz,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (resource_id, kind)
    );
    CREATE INDEX generated_content_org_idx ON generated_content (organization_id, resource_id);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query('DROP TABLE generated_content');
}
