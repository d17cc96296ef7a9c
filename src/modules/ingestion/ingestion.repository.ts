// The ingestion's SQL: status rows (one per resource version), a run's passage drafts, and the swap of
// a resource's passages in one transaction.
import type { Transaction } from 'sequelize';
import type { LocationKind, PageNumberSource } from '../../integrations/documents/extraction.ts';
import type { Sql } from '../../shared/sql.ts';
import type { Passage } from './passage.splitter.ts';

export type IngestionStatus =
  | 'queued'
  | 'running'
  | 'done'
  | 'failed'
  | 'no_text'
  | 'unsupported'
  | 'superseded'
  | 'withdrawn';

export interface IngestionRow {
  id: string;
  organization_id: string;
  resource_id: string;
  version_id: string;
  version: number;
  run_id: string | null;
  status: IngestionStatus;
  pages_done: number;
  pages_total: number | null;
  passages: number;
  page_numbers: PageNumberSource | null;
  embedding_model: string | null;
  /** Pages read by OCR in this run, and the mean confidence (0-1) of the words read there. */
  ocr_pages: number;
  ocr_confidence: number | null;
  attempts: number;
  last_error: string | null;
  queued_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  updated_at: Date;
}

/** The resource with its current version: what an ingestion reads. */
export interface CurrentVersion {
  resource_id: string;
  organization_id: string;
  status: 'draft' | 'published';
  version_id: string;
  version: number;
  format: string;
  content_type: string;
  storage_key: string;
}

const ROW = `i.*, v.version`;

export class IngestionRepository {
  constructor(private readonly sql: Sql) {}

  async currentVersion(
    resourceId: string,
    transaction?: Transaction | null,
    lock = false,
  ): Promise<CurrentVersion | undefined> {
    return this.sql.one<CurrentVersion>(
      `SELECT r.id AS resource_id, r.organization_id, r.status, v.id AS version_id, v.version, v.format, v.content_type, v.storage_key
         FROM resources r JOIN resource_versions v ON v.resource_id = r.id AND v.version = r.current_version
        WHERE r.id = $1 ${lock ? 'FOR UPDATE OF r' : ''}`,
      [resourceId],
      transaction,
    );
  }

  async versionFile(
    versionId: string,
  ): Promise<{ organization_id: string; storage_key: string; format: string } | undefined> {
    return this.sql.one('SELECT organization_id, storage_key, format FROM resource_versions WHERE id = $1', [
      versionId,
    ]);
  }

  async forVersion(versionId: string, transaction?: Transaction | null): Promise<IngestionRow | undefined> {
    return this.sql.one<IngestionRow>(
      `SELECT ${ROW} FROM resource_ingestions i JOIN resource_versions v ON v.id = i.version_id WHERE i.version_id = $1`,
      [versionId],
      transaction,
    );
  }

  async forRun(runId: string, transaction?: Transaction | null, lock = false): Promise<IngestionRow | undefined> {
    return this.sql.one<IngestionRow>(
      `SELECT ${ROW} FROM resource_ingestions i JOIN resource_versions v ON v.id = i.version_id WHERE i.run_id = $1 ${lock ? 'FOR UPDATE OF i' : ''}`,
      [runId],
      transaction,
    );
  }

  /** The output of the run's step `name`, once it succeeded. */
  async stepOutput<T>(runId: string, name: string): Promise<T | undefined> {
    const row = await this.sql.one<{ output: T }>(
      `SELECT output FROM pipeline_steps WHERE run_id = $1 AND name = $2 AND status = 'succeeded'`,
      [runId, name],
    );
    return row?.output ?? undefined;
  }

  async pipelineStatus(runId: string): Promise<string | undefined> {
    return (await this.sql.one<{ status: string }>('SELECT status FROM pipeline_runs WHERE id = $1', [runId]))?.status;
  }

  /** The version's row, reset to `status` for a new run (or created). */
  async reset(
    version: CurrentVersion,
    values: { runId: string | null; status: IngestionStatus; lastError?: string | null; now: Date },
    transaction: Transaction,
  ): Promise<void> {
    await this.sql.query(
      `INSERT INTO resource_ingestions (organization_id, resource_id, version_id, run_id, status, last_error, queued_at, updated_at, finished_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7, CASE WHEN $5 IN ('queued', 'running') THEN NULL ELSE $7::timestamptz END)
       ON CONFLICT (version_id) DO UPDATE SET run_id = EXCLUDED.run_id, status = EXCLUDED.status, last_error = EXCLUDED.last_error,
         pages_done = 0, pages_total = NULL, passages = 0, page_numbers = NULL, embedding_model = NULL, attempts = 0,
         ocr_pages = 0, ocr_confidence = NULL,
         queued_at = EXCLUDED.queued_at, started_at = NULL, finished_at = EXCLUDED.finished_at, updated_at = EXCLUDED.updated_at`,
      [
        version.organization_id,
        version.resource_id,
        version.version_id,
        values.runId,
        values.status,
        values.lastError ?? null,
        values.now,
      ],
      transaction,
    );
  }

  /** Sets fields of the run's row, only while that run is in charge of it. */
  async update(
    runId: string,
    values: Partial<
      Pick<
        IngestionRow,
        | 'status'
        | 'pages_done'
        | 'pages_total'
        | 'passages'
        | 'page_numbers'
        | 'embedding_model'
        | 'ocr_pages'
        | 'ocr_confidence'
        | 'attempts'
        | 'last_error'
        | 'started_at'
        | 'finished_at'
      >
    >,
    now: Date,
    transaction?: Transaction | null,
  ): Promise<boolean> {
    const entries = Object.entries(values);
    const sets = entries.map(([column], i) => `${column} = $${i + 3}`);
    const result = await this.sql.query(
      `UPDATE resource_ingestions SET ${[...sets, 'updated_at = $2'].join(', ')} WHERE run_id = $1`,
      [runId, now, ...entries.map(([, value]) => value)],
      transaction,
    );
    return result.rowCount > 0;
  }

  /** Marks a resource's unfinished or finished ingestions withdrawn (unpublished or deleted). */
  async withdraw(resourceId: string, now: Date, transaction?: Transaction | null): Promise<void> {
    await this.sql.query(
      `UPDATE resource_ingestions SET status = 'withdrawn', run_id = NULL, updated_at = $2, finished_at = coalesce(finished_at, $2)
        WHERE resource_id = $1 AND status IN ('queued', 'running', 'done', 'failed')`,
      [resourceId, now],
      transaction,
    );
  }

  // --- drafts -------------------------------------------------------------------------------

  async deleteDrafts(runId: string, transaction?: Transaction | null): Promise<void> {
    await this.sql.query('DELETE FROM resource_passage_drafts WHERE run_id = $1', [runId], transaction);
  }

  /** What a failed or interrupted OCR step of one page half-wrote. */
  async deletePageDrafts(runId: string, pageNumber: number, transaction?: Transaction | null): Promise<void> {
    await this.sql.query(
      'DELETE FROM resource_passage_drafts WHERE run_id = $1 AND page_number = $2',
      [runId, pageNumber],
      transaction,
    );
  }

  /** The ordinal after the run's last draft (OCR pages add their passages after the text layer's). */
  async nextDraftOrdinal(runId: string, transaction?: Transaction | null): Promise<number> {
    const row = await this.sql.one<{ next: number }>(
      'SELECT coalesce(max(ordinal) + 1, 0)::int AS next FROM resource_passage_drafts WHERE run_id = $1',
      [runId],
      transaction,
    );
    return row?.next ?? 0;
  }

  async countDrafts(runId: string): Promise<number> {
    const row = await this.sql.one<{ n: number }>(
      'SELECT count(*)::int AS n FROM resource_passage_drafts WHERE run_id = $1',
      [runId],
    );
    return row?.n ?? 0;
  }

  async insertDrafts(
    runId: string,
    version: Pick<CurrentVersion, 'organization_id' | 'resource_id' | 'version_id'>,
    passages: readonly Passage[],
    transaction?: Transaction | null,
  ): Promise<void> {
    for (let i = 0; i < passages.length; i += 500) {
      const batch = passages.slice(i, i + 500);
      await this.sql.query(
        `INSERT INTO resource_passage_drafts (run_id, ordinal, organization_id, resource_id, version_id, page_number, location_kind, heading_path, content)
         SELECT $1, x.ordinal, $2, $3, $4, x.page_number, x.location_kind, x.heading_path, x.content
           FROM unnest($5::int[], $6::int[], $7::text[], $8::text[], $9::text[]) AS x(ordinal, page_number, location_kind, heading_path, content)`,
        [
          runId,
          version.organization_id,
          version.resource_id,
          version.version_id,
          batch.map((p) => p.ordinal),
          batch.map((p) => p.pageNumber),
          batch.map((p) => p.locationKind),
          batch.map((p) => p.headingPath),
          batch.map((p) => p.text),
        ],
        transaction,
      );
    }
  }

  /** The next drafts without a vector of `model`, in document order. */
  async draftsToEmbed(
    runId: string,
    model: string,
    limit: number,
  ): Promise<Array<{ ordinal: number; content: string; heading_path: string | null }>> {
    return this.sql.rows(
      `SELECT ordinal, content, heading_path FROM resource_passage_drafts WHERE run_id = $1 AND embedding_model IS DISTINCT FROM $2 ORDER BY ordinal LIMIT $3`,
      [runId, model, limit],
    );
  }

  async storeDraftVectors(
    runId: string,
    model: string,
    vectors: ReadonlyArray<{ ordinal: number; vector: readonly number[] }>,
    transaction?: Transaction | null,
  ): Promise<void> {
    await this.sql.query(
      `UPDATE resource_passage_drafts d SET embedding = x.embedding::real[], embedding_model = $2
         FROM unnest($3::int[], $4::text[]) AS x(ordinal, embedding)
        WHERE d.run_id = $1 AND d.ordinal = x.ordinal`,
      [runId, model, vectors.map((v) => v.ordinal), vectors.map((v) => `{${v.vector.join(',')}}`)],
      transaction,
    );
  }

  /** Pages with every passage embedded by `model` (pages without text count as done). */
  async pagesDone(runId: string, model: string, pagesTotal: number): Promise<number> {
    const row = await this.sql.one<{ pending: number }>(
      `SELECT count(DISTINCT page_number)::int AS pending FROM resource_passage_drafts WHERE run_id = $1 AND embedding_model IS DISTINCT FROM $2`,
      [runId, model],
    );
    return Math.max(0, pagesTotal - (row?.pending ?? 0));
  }

  // --- activation ---------------------------------------------------------------------------

  /** Replaces every passage of the resource with the run's drafts; returns how many passages it has now. */
  async swapPassages(
    runId: string,
    resourceId: string,
    withVectors: boolean,
    transaction: Transaction,
    options: { pageOrder?: boolean } = {},
  ): Promise<number> {
    await this.sql.query('DELETE FROM resource_passages WHERE resource_id = $1', [resourceId], transaction);
    // OCR pages draft their passages after the text layer's: renumbered in page order (a PDF's only order)
    const ordinal = options.pageOrder
      ? '(row_number() OVER (ORDER BY d.page_number, d.ordinal) - 1)::int'
      : 'd.ordinal';
    const vector = withVectors ? ', embedding' : '';
    const value = withVectors ? ', CASE WHEN d.embedding IS NULL THEN NULL ELSE d.embedding::vector END' : '';
    const result = await this.sql.query(
      `INSERT INTO resource_passages (organization_id, resource_id, version_id, ordinal, page_number, location_kind, heading_path, content, embedding_model${vector})
       SELECT d.organization_id, d.resource_id, d.version_id, ${ordinal}, d.page_number, d.location_kind, d.heading_path, d.content,
              ${withVectors ? 'CASE WHEN d.embedding IS NULL THEN NULL ELSE d.embedding_model END' : 'NULL'}${value}
         FROM resource_passage_drafts d WHERE d.run_id = $1`,
      [runId],
      transaction,
    );
    await this.deleteDrafts(runId, transaction);
    return result.rowCount;
  }

  /** Retrieval loses the resource at once: its passages and any drafts go. */
  async removePassages(resourceId: string, transaction?: Transaction | null): Promise<void> {
    await this.sql.query('DELETE FROM resource_passages WHERE resource_id = $1', [resourceId], transaction);
    await this.sql.query('DELETE FROM resource_passage_drafts WHERE resource_id = $1', [resourceId], transaction);
  }

  // --- model switch -------------------------------------------------------------------------

  async passagesOfOtherModels(
    model: string,
    limit: number,
  ): Promise<Array<{ id: string; content: string; heading_path: string | null }>> {
    return this.sql.rows(
      `SELECT id, content, heading_path FROM resource_passages WHERE embedding_model IS DISTINCT FROM $1 ORDER BY id LIMIT $2`,
      [model, limit],
    );
  }

  async storePassageVectors(
    model: string,
    vectors: ReadonlyArray<{ id: string; vector: readonly number[] }>,
  ): Promise<void> {
    await this.sql.query(
      `UPDATE resource_passages p SET embedding = x.embedding::vector, embedding_model = $1
         FROM unnest($2::uuid[], $3::text[]) AS x(id, embedding) WHERE p.id = x.id`,
      [model, vectors.map((v) => v.id), vectors.map((v) => `[${v.vector.join(',')}]`)],
    );
  }

  /** Whether `table.column` exists: the vector columns converge only where pgvector is installed. */
  async hasColumn(table: string, column: string): Promise<boolean> {
    const row = await this.sql.one<{ present: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = $2 AND NOT attisdropped) AS present`,
      [table, column],
    );
    return Boolean(row?.present);
  }
}

export type { LocationKind };
