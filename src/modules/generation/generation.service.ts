// Generated content on the request side: who may ask for a podcast or infographic (client admins,
// `content:generate`), which sources qualify (ingested, under GENERATION_MAX_PAGES pages), and who
// may read the result (whoever may open the source: the library's one policy decides, so generated
// media answers 404/403 exactly like the source). The work itself runs in the worker (generation.worker.ts).
import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import type { FileStorage } from '../../integrations/storage/file-storage.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Actor } from '../../shared/access/actor.ts';
import { assertCan } from '../../shared/access/policy.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError, errors } from '../../shared/errors.ts';
import type { Sql } from '../../shared/sql.ts';
import { requireResourceAccess, resolveReader } from '../library/index.ts';
import type { StoredFile } from '../../http/send-stored-file.ts';
import { GeneratedContent, type GenerationKind, type StorageKeys } from './generated-content.model.ts';
import { loadSourceSummary, type SourceSummary } from './source.repository.ts';

export const GENERATION_JOBS = { podcast: 'generation.podcast', infographic: 'generation.infographic' } as const;

export interface GenerationJob {
  contentId: string;
  runId: string;
}

export interface GenerationServiceDeps {
  sequelize: Sequelize;
  sql: Sql;
  clock: Clock;
  queue: JobQueue;
  storage: FileStorage;
  maxPages: number;
}

const FILES: Record<GenerationKind, Partial<Record<keyof StorageKeys, { contentType: string; extension: string }>>> = {
  podcast: { audio: { contentType: 'audio/mpeg', extension: 'mp3' } },
  infographic: {
    svg: { contentType: 'image/svg+xml', extension: 'svg' },
    png: { contentType: 'image/png', extension: 'png' },
  },
};

export class GenerationService {
  constructor(private readonly deps: GenerationServiceDeps) {}

  /**
   * Queues a generation (or a regeneration of a ready, stale or failed one). A request while one is
   * queued or running answers that one: the same work is not done twice.
   */
  async request(actor: Actor, resourceId: string, kind: GenerationKind): Promise<GeneratedContent> {
    assertCan(actor, 'content:generate');
    const reader = await resolveReader(this.deps.sql, actor);
    await requireResourceAccess(this.deps.sql, reader, resourceId, 'open');
    const source = await loadSourceSummary(this.deps.sql, resourceId);
    if (!source?.versionId || source.passages === 0)
      throw new AppError('source_not_ingested', whyNoText(resourceId, source));
    if (source.pages >= this.deps.maxPages) {
      throw new AppError(
        'source_too_long',
        `The source has ${source.pages} pages; ${kind}s are generated from documents under ${this.deps.maxPages} pages.`,
        { pages: source.pages, maxPages: this.deps.maxPages },
      );
    }
    return this.deps.sequelize.transaction(async (transaction) => {
      const existing = await GeneratedContent.findOne({
        where: { resourceId, kind },
        transaction,
        lock: transaction.LOCK.UPDATE,
      });
      if (existing && (existing.status === 'queued' || existing.status === 'running')) return existing;
      const now = this.deps.clock.now();
      const request = {
        status: 'queued' as const,
        progress: 0,
        error: null,
        runId: randomUUID(),
        requestedVersionId: source.versionId,
        requestedAt: now,
        createdBy: actor.type === 'user' ? actor.id : null,
      };
      const record = existing
        ? await existing.update(request, { transaction })
        : await GeneratedContent.create(
            { organizationId: source.organizationId, resourceId, kind, ...request },
            { transaction },
          );
      await this.deps.queue.enqueue(
        GENERATION_JOBS[kind],
        { contentId: record.id, runId: record.runId },
        { transaction },
      );
      return record;
    });
  }

  async get(actor: Actor, resourceId: string, kind: GenerationKind): Promise<GeneratedContent> {
    await this.requireOpen(actor, resourceId);
    const record = await GeneratedContent.findOne({ where: { resourceId, kind } });
    if (!record) throw errors.notFound(`${kind} of resource`, resourceId);
    return record;
  }

  /** Everything generated from the resource. */
  async list(actor: Actor, resourceId: string): Promise<GeneratedContent[]> {
    await this.requireOpen(actor, resourceId);
    return GeneratedContent.findAll({ where: { resourceId }, order: [['kind', 'ASC']] });
  }

  /** One file of the last complete output, for sendStoredFile. */
  async file(actor: Actor, resourceId: string, kind: GenerationKind, role: keyof StorageKeys): Promise<StoredFile> {
    const record = await this.get(actor, resourceId, kind);
    const key = record.storageKeys[role];
    const type = FILES[kind][role];
    if (!key || !type || !record.generatedAt) throw errors.notFound(`${kind} file of resource`, resourceId);
    const stored = await this.deps.storage.stat(key);
    if (!stored) throw errors.notFound(`${kind} file of resource`, resourceId);
    const name = await this.deps.sql.one<{ name: string }>('SELECT name FROM resources WHERE id = $1::uuid', [
      resourceId,
    ]);
    const base =
      (name?.name ?? kind)
        .replace(/[\\/:*?"<>|\u0000-\u001f]+/g, ' ')
        .trim()
        .slice(0, 150) || kind;
    return {
      key,
      sizeBytes: stored.sizeBytes,
      contentType: type.contentType,
      // each output's keys are unique to its run (never rewritten), so the run names the bytes
      etag: `"${key.split('/').pop()}"`,
      lastModified: record.generatedAt,
      fileName: `${base} (${kind}).${type.extension}`,
      disposition: role === 'audio' || role === 'png' ? 'inline' : 'attachment',
    };
  }

  private async requireOpen(actor: Actor, resourceId: string): Promise<void> {
    const reader = await resolveReader(this.deps.sql, actor);
    await requireResourceAccess(this.deps.sql, reader, resourceId, 'open');
  }
}

/** Why a source has no text to generate from, so that "try again later" is said only when it may help. */
function whyNoText(resourceId: string, source: SourceSummary | undefined): string {
  const ingestion = `/api/resources/${resourceId}/ingestion`;
  const [why, remedy] = ((): [string, string] => {
    switch (source?.ingestion?.status) {
      case 'no_text':
        return [
          'its ingestion found none in the current version (an image, or a scan without a text layer)',
          'Upload a version with text.',
        ];
      case 'unsupported':
        return ['ingestion does not read this format', 'Upload a document (PDF, Word, text...).'];
      case 'failed':
        return [
          `its ingestion failed: ${source.ingestion.lastError ?? 'no reason recorded'}`,
          `Upload a readable version, or re-run the ingestion (POST ${ingestion}).`,
        ];
      default:
        // a draft has no text: never ingested, or its text withdrawn when it went back to draft
        return source && !source.published
          ? ['a draft is not ingested', 'Publish it, then try again once ingestion has finished.']
          : ['its ingestion has not finished', `Try again once it has (GET ${ingestion}).`];
    }
  })();
  const base = `Resource ${resourceId} has no extracted text: generation reads the text ingestion extracts`;
  return `${base}, and ${why}. ${remedy}`;
}
