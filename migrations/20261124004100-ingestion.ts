import type { MigrationContext } from '../src/shared/migrator.ts';

// Ingestion of library documents into resource_passages (src/modules/ingestion). One status row per
// resource version; a run's passages are drafted (and embedded) in their own table and swapped into
// resource_passages in one transaction, so retrieval never sees half a document. Draft vectors are
// plain real[] (no pgvector needed, no HNSW index to maintain while drafting): activation casts them.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE resource_ingestions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      resource_id uuid NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
      version_id uuid NOT NULL UNIQUE REFERENCES resource_versions(id) ON DELETE CASCADE,
      -- the run now in charge; an older run finding another id here stops
      run_id uuid REFERENCES pipeline_runs(id) ON DELETE SET NULL,
      status text NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed', 'no_text', 'unsupported', 'superseded', 'withdrawn')),
      pages_done integer NOT NULL DEFAULT 0 CHECK (pages_done >= 0),
      pages_total integer CHECK (pages_total >= 0),
      passages integer NOT NULL DEFAULT 0 CHECK (passages >= 0),
      page_numbers text CHECK (page_numbers IN ('exact', 'recorded', 'rendered', 'estimated')),
      embedding_model text,
      attempts integer NOT NULL DEFAULT 0,
      last_error text,
      queued_at timestamptz NOT NULL,
      started_at timestamptz,
      finished_at timestamptz,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX resource_ingestions_resource_idx ON resource_ingestions (resource_id, queued_at DESC);

    CREATE TABLE resource_passage_drafts (
      run_id uuid NOT NULL REFERENCES pipeline_runs(id) ON DELETE CASCADE,
      ordinal integer NOT NULL CHECK (ordinal >= 0),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      resource_id uuid NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
      version_id uuid NOT NULL REFERENCES resource_versions(id) ON DELETE CASCADE,
      page_number integer NOT NULL CHECK (page_number >= 1),
      location_kind text NOT NULL CHECK (location_kind IN ('page', 'slide', 'sheet', 'section', 'text')),
      heading_path text,
      content text NOT NULL,
      embedding_model text,
      embedding real[],
      PRIMARY KEY (run_id, ordinal)
    );
    CREATE INDEX resource_passage_drafts_resource_idx ON resource_passage_drafts (resource_id);
    -- the background re-embedding after a model switch looks for passages of another model
    CREATE INDEX resource_passages_model_idx ON resource_passages (embedding_model);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP INDEX resource_passages_model_idx;
    DROP TABLE resource_passage_drafts;
    DROP TABLE resource_ingestions;
  `);
}
