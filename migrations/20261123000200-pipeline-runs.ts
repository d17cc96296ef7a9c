import type { MigrationContext } from '../src/shared/migrator.ts';

// Step state of long pipelines (ingestion, generated media): a run resumes at the step that failed,
// and a step left `running` by a crash is cleaned up before it runs again.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE pipeline_runs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid REFERENCES organizations(id) ON DELETE CASCADE,
      kind text NOT NULL,
      subject_type text,
      subject_id text,
      input jsonb NOT NULL DEFAULT '{}',
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'failed', 'succeeded')),
      current_step text,
      attempts integer NOT NULL DEFAULT 0,
      last_error text,
      finished_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX pipeline_runs_subject_idx ON pipeline_runs (subject_type, subject_id, created_at DESC);
    CREATE INDEX pipeline_runs_finished_idx ON pipeline_runs (updated_at) WHERE status IN ('succeeded', 'failed');

    CREATE TABLE pipeline_steps (
      run_id uuid NOT NULL REFERENCES pipeline_runs(id) ON DELETE CASCADE,
      name text NOT NULL,
      position integer NOT NULL,
      status text NOT NULL CHECK (status IN ('running', 'failed', 'succeeded')),
      attempts integer NOT NULL DEFAULT 0,
      output jsonb,
      last_error text,
      started_at timestamptz,
      finished_at timestamptz,
      PRIMARY KEY (run_id, name)
    );
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query('DROP TABLE pipeline_steps; DROP TABLE pipeline_runs;');
}
