// Starting, showing and re-running ingestions. Publishing a resource or adding a version starts one
// (ingestion.subscriber.ts); unpublishing or deleting removes the resource's passages at once.
import type { Sequelize, Transaction } from 'sequelize';
import { isExtractable } from '../../integrations/documents/extraction.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Pipelines } from '../../jobs/pipeline/pipelines.ts';
import type { Actor } from '../../shared/access/actor.ts';
import { scopeFor } from '../../shared/access/scope.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError, errors } from '../../shared/errors.ts';
import type { Sql } from '../../shared/sql.ts';
import { requireResourceAccess, resolveReader } from '../library/index.ts';
import type { CurrentVersion, IngestionRepository, IngestionRow } from './ingestion.repository.ts';

export const INGESTION_PIPELINE = 'library.ingest';
export const INGESTION_JOB = 'ingestion.run';
/** A run not heard from for this long is taken to be lost (its worker died past every retry). */
export const STALE_RUN_MS = 60 * 60 * 1000;

/** The status of a resource's current version: its row, or `not_started` when it has none. */
export interface IngestionView {
  resourceId: string;
  version: CurrentVersion;
  row: IngestionRow | undefined;
}

export interface IngestionServiceDeps {
  sequelize: Sequelize;
  sql: Sql;
  repository: IngestionRepository;
  pipelines: Pipelines;
  queue: JobQueue;
  clock: Clock;
  /** OCR is on: PNG and JPEG images are ingested too (their text is what OCR reads). */
  ocr?: boolean;
}

export class IngestionService {
  constructor(private readonly deps: IngestionServiceDeps) {}

  /** Managers and staff: the ingestion of the resource's current version. */
  async status(actor: Actor, resourceId: string): Promise<IngestionView> {
    const reader = await resolveReader(this.deps.sql, actor);
    // the role before the record, as everywhere: a member gets 403 whichever resource it names
    if (reader.standing !== 'manager' && reader.standing !== 'staff')
      throw errors.forbidden("Only the organization's administrators and staff see ingestion status");
    await requireResourceAccess(this.deps.sql, reader, resourceId, 'see');
    return this.view(resourceId);
  }

  /** Client admins: ingest the current version again (no second run while one is under way). */
  async rerun(actor: Actor, resourceId: string): Promise<IngestionView> {
    const scope = scopeFor(actor, 'resource', 'write');
    const owner = await this.deps.sql.one<{ id: string }>(
      'SELECT id FROM resources WHERE id = $1::uuid AND organization_id = $2',
      [resourceId, scope.organizationId],
    );
    if (!owner) throw errors.notFound('resource', resourceId);
    await this.deps.sequelize.transaction(async (transaction) => {
      const version = await this.deps.repository.currentVersion(resourceId, transaction, true);
      if (!version) throw errors.notFound('resource', resourceId);
      if (version.status !== 'published')
        throw new AppError(
          'conflict',
          'Only published resources are ingested: publish it first (publishing starts the ingestion).',
        );
      await this.start(version, transaction, true);
    });
    return this.view(resourceId);
  }

  /**
   * Brings the resource's passages in line with its state, in the caller's transaction (the run and its
   * job commit with it): published -> its current version is ingested (unless that is done or under
   * way); draft or deleted -> withdrawn. Reading the state rather than trusting the event kind makes
   * the outcome independent of the order in which a quick unpublish and republish are delivered.
   */
  async reconcile(resourceId: string, transaction: Transaction): Promise<void> {
    const version = await this.deps.repository.currentVersion(resourceId, transaction, true);
    if (!version || version.status !== 'published') return this.withdraw(resourceId, transaction);
    await this.start(version, transaction, false);
  }

  /** Unpublished or deleted: retrieval drops it now (its passages go), and runs under way stop. */
  async withdraw(resourceId: string, transaction: Transaction): Promise<void> {
    await this.deps.repository.removePassages(resourceId, transaction);
    await this.deps.repository.withdraw(resourceId, this.deps.clock.now(), transaction);
  }

  /** `rerun`: start again even when this version was ingested already (never beside a live run). */
  private async start(version: CurrentVersion, transaction: Transaction, rerun: boolean): Promise<void> {
    const { repository, clock } = this.deps;
    const existing = await repository.forVersion(version.version_id, transaction);
    const now = clock.now();
    if (
      existing &&
      ['queued', 'running'].includes(existing.status) &&
      now.getTime() - existing.updated_at.getTime() < STALE_RUN_MS
    )
      return;
    if (existing && !rerun && ['done', 'no_text', 'unsupported'].includes(existing.status)) return;
    if (!isExtractable(version.format, { ocr: this.deps.ocr ?? false })) {
      // video, audio, SVG (and images without OCR) have no text: the old version's passages (if any) go, the status says why
      await repository.removePassages(version.resource_id, transaction);
      await repository.reset(
        version,
        { runId: null, status: 'unsupported', lastError: `${version.format} files have no text to ingest.`, now },
        transaction,
      );
      return;
    }
    const run = await this.deps.pipelines.create(
      {
        kind: INGESTION_PIPELINE,
        organizationId: version.organization_id,
        subject: { type: 'resource_version', id: version.version_id },
        input: { resourceId: version.resource_id, versionId: version.version_id },
      },
      transaction,
    );
    await repository.reset(version, { runId: run.id, status: 'queued', now }, transaction);
    await this.deps.queue.enqueue(INGESTION_JOB, { runId: run.id }, { transaction });
  }

  private async view(resourceId: string): Promise<IngestionView> {
    const version = await this.deps.repository.currentVersion(resourceId);
    if (!version) throw errors.notFound('resource', resourceId);
    return { resourceId, version, row: await this.deps.repository.forVersion(version.version_id) };
  }
}
