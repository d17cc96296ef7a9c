// The ingestion of one resource version, as pipeline steps (jobs/pipeline): extract -> ocr-page-<n> (one
// step per page without a text layer, when OCR is on) -> embed -> activate. Each step is idempotent and its
// progress is in the database, so a retry (or a worker restarted after a crash) resumes where the last
// attempt stopped: extraction redrafts from scratch, a page's OCR redrafts that page, embedding continues
// with the drafts that have no vector yet, activation is one transaction.
import type { Sequelize } from 'sequelize';
import type { Embedder } from '../../integrations/embeddings/embedder.ts';
import {
  extractDocument,
  isExtractable,
  UnreadableDocumentError,
  type Extraction,
  type PageNumberSource,
} from '../../integrations/documents/extraction.ts';
import type { OcrEngine } from '../../integrations/documents/ocr.ts';
import { PageImages } from '../../integrations/documents/page-images.ts';
import type { FileStorage } from '../../integrations/storage/file-storage.ts';
import type { Pipelines, PipelineStep, StepContext } from '../../jobs/pipeline/pipelines.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../../shared/logger.ts';
import type { IngestionRepository, IngestionStatus } from './ingestion.repository.ts';
import { ocrNoTextMessage, type OcrPageResult, ocrPageStep, ocrResults } from './ocr-page.step.ts';
import { splitIntoPassages } from './passage.splitter.ts';

export interface IngestionInput {
  resourceId: string;
  versionId: string;
}

interface Extracted {
  outcome: 'passages' | 'no_text' | 'unreadable';
  passages: number;
  pagesTotal: number;
  pageNumbers: PageNumberSource | null;
  message?: string;
  /** Pages without text that OCR reads, each in its own step (none when OCR is off). */
  ocrPages?: number[];
  format?: string;
}

export interface IngestionRunnerDeps {
  sequelize: Sequelize;
  repository: IngestionRepository;
  pipelines: Pipelines;
  storage: FileStorage;
  embedder: Embedder;
  clock: Clock;
  logger: Logger;
  /** Where LibreOffice is (config.ai.libreOfficePath), for Word files' page numbers. */
  libreOfficePath?: string;
  /** Passages embedded per call (and per progress update). */
  batchSize?: number;
  /** Reads scanned pages and images (config.ai.ocr.enabled); without it they end `no_text`/`unsupported`. */
  ocr?: OcrEngine;
}

export const NO_TEXT_MESSAGE =
  'No text layer was found: the document looks scanned (images of pages). Run it through OCR and upload the result as a new version to make it searchable.';

/** The run's status and message once its passages are counted. */
function outcomeOf(
  extracted: Extracted,
  read: readonly OcrPageResult[],
  passages: number,
): { status: IngestionStatus; lastError: string | null } {
  if (extracted.outcome === 'unreadable') return { status: 'failed', lastError: extracted.message ?? null };
  if (passages > 0) return { status: 'done', lastError: null };
  // an image that does not decode at all failed; a blank or illegible one has no text
  if (read.length && read.every((page) => page.unreadable) && extracted.format !== 'pdf')
    return { status: 'failed', lastError: read.map((page) => page.unreadable).join('; ') };
  return {
    status: 'no_text',
    lastError: read.length ? ocrNoTextMessage(extracted.format ?? 'pdf', read) : NO_TEXT_MESSAGE,
  };
}

/** What the embedder sees of a passage: its headings give short passages their context. */
export const embeddingInput = (passage: { content: string; heading_path: string | null }) =>
  passage.heading_path ? `${passage.heading_path}\n${passage.content}` : passage.content;

async function readAll(storage: FileStorage, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await storage.get(key))
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

export class IngestionRunner {
  private readonly batchSize: number;

  constructor(private readonly deps: IngestionRunnerDeps) {
    this.batchSize = deps.batchSize ?? 16;
  }

  /** The ingestion's SQL, shared with the background re-embedding. */
  get repository(): IngestionRepository {
    return this.deps.repository;
  }

  /** Runs (or resumes) the run; the job queue retries it when a step throws. */
  async run(runId: string): Promise<void> {
    const { repository, clock } = this.deps;
    const row = await repository.forRun(runId);
    // replaced by a newer run, or the resource is gone (or unpublished): nothing to do
    if (!row || !['queued', 'running', 'failed'].includes(row.status)) return;
    // a duplicate delivery of a finished run (e.g. one that ended failed on an unreadable file)
    if ((await repository.pipelineStatus(runId)) === 'succeeded') return;
    await repository.update(
      runId,
      { status: 'running', attempts: row.attempts + 1, started_at: row.started_at ?? clock.now(), last_error: null },
      clock.now(),
    );
    const images = new PageImages(async () => {
      const stored = await repository.versionFile(row.version_id);
      if (!stored) throw new Error('The resource version no longer exists');
      return { format: stored.format, data: await readAll(this.deps.storage, stored.storage_key) };
    });
    try {
      await this.deps.pipelines.runPipeline<IngestionInput>(runId, await this.plan(runId, images));
    } catch (error) {
      await repository.update(
        runId,
        { status: 'failed', last_error: String((error as Error)?.message ?? error).slice(0, 2000) },
        clock.now(),
      );
      throw error;
    } finally {
      await images.close();
    }
  }

  /**
   * The run's steps. Which pages OCR reads is known once `extract` has run: when it has not yet, its step
   * appends theirs (then embed and activate) to this very list, which runPipeline walks as it grows.
   */
  private async plan(runId: string, images: PageImages): Promise<PipelineStep<IngestionInput>[]> {
    const extracted = await this.deps.repository.stepOutput<Extracted>(runId, 'extract');
    if (extracted) return this.steps(extracted.ocrPages ?? [], images);
    const [extract] = this.steps();
    const steps: PipelineStep<IngestionInput>[] = [
      {
        ...extract!,
        run: async (context) => {
          const output = (await extract!.run(context)) as Extracted;
          steps.push(...this.steps(output.ocrPages ?? [], images).slice(1));
          return output;
        },
      },
    ];
    return steps;
  }

  /** extract, `ocr-page-<n>` for each of `ocrPages` (rendered from `images`), embed, activate. */
  steps(ocrPages: readonly number[] = [], images?: PageImages): PipelineStep<IngestionInput>[] {
    const { ocr, repository, clock } = this.deps;
    const reading = ocr && images ? ocrPages.map((page) => ocrPageStep({ repository, ocr, clock }, page, images)) : [];
    return [
      {
        name: 'extract',
        run: (context) => this.extract(context),
        cleanUp: ({ runId }) => this.deps.repository.deleteDrafts(runId),
      },
      ...reading,
      // no clean-up: vectors already stored are kept, the retry embeds only the rest
      { name: 'embed', run: (context) => this.embed(context) },
      { name: 'activate', run: (context) => this.activate(context) },
    ];
  }

  private async extract({ runId, input, logger }: StepContext<IngestionInput>): Promise<Extracted> {
    const { repository, storage, clock } = this.deps;
    const stored = await repository.versionFile(input.versionId);
    if (!stored)
      return {
        outcome: 'unreadable',
        passages: 0,
        pagesTotal: 0,
        pageNumbers: null,
        message: 'The resource or its version no longer exists.',
      };
    if (!isExtractable(stored.format, { ocr: Boolean(this.deps.ocr) }))
      return {
        outcome: 'unreadable',
        passages: 0,
        pagesTotal: 0,
        pageNumbers: null,
        message: `The ${stored.format} format has no text to extract.`,
      };
    await repository.deleteDrafts(runId);
    let extraction: Extraction;
    try {
      extraction = await extractDocument(stored.format, await readAll(storage, stored.storage_key), {
        libreOfficePath: this.deps.libreOfficePath,
      });
    } catch (error) {
      // a corrupt or encrypted file fails the same way on every retry: say so and stop
      if (!(error instanceof UnreadableDocumentError)) throw error;
      logger.warn({ err: error }, 'document could not be read');
      return { outcome: 'unreadable', passages: 0, pagesTotal: 0, pageNumbers: null, message: error.message };
    }
    const passages = splitIntoPassages(extraction.units);
    await repository.insertDrafts(
      runId,
      { organization_id: stored.organization_id, resource_id: input.resourceId, version_id: input.versionId },
      passages,
    );
    await repository.update(
      runId,
      { pages_total: extraction.pagesTotal, page_numbers: extraction.pageNumbers, passages: passages.length },
      clock.now(),
    );
    const ocrPages = this.deps.ocr ? (extraction.pagesWithoutText ?? []) : [];
    logger.info({ passages: passages.length, pages: extraction.pagesTotal, ocrPages }, 'document extracted');
    return {
      outcome: passages.length ? 'passages' : 'no_text',
      passages: passages.length,
      pagesTotal: extraction.pagesTotal,
      pageNumbers: extraction.pageNumbers,
      ocrPages,
      format: stored.format,
    };
  }

  /** Whether passages get vectors: only where pgvector is installed (else retrieval is keyword-only). */
  private vectorsAvailable(): Promise<boolean> {
    return this.deps.repository.hasColumn('resource_passages', 'embedding');
  }

  private async embed({
    runId,
    outputs,
    logger,
  }: StepContext<IngestionInput>): Promise<{ embedded: number; model: string | null }> {
    const extracted = outputs.extract as Extracted;
    // OCR may have drafted passages where the text layer gave none: the drafts decide, not the extraction
    if (extracted.outcome === 'unreadable' || !(await this.vectorsAvailable())) return { embedded: 0, model: null };
    const { repository, embedder, clock } = this.deps;
    let embedded = 0;
    for (;;) {
      const batch = await repository.draftsToEmbed(runId, embedder.model, this.batchSize);
      if (!batch.length) break;
      const vectors = await embedder.embed(batch.map(embeddingInput));
      await repository.storeDraftVectors(
        runId,
        embedder.model,
        batch.map((draft, i) => ({ ordinal: draft.ordinal, vector: vectors[i]! })),
      );
      embedded += batch.length;
      const pagesDone = await repository.pagesDone(runId, embedder.model, extracted.pagesTotal);
      // still in charge? a newer run (or an unpublish) makes this one stop between batches
      if (!(await repository.update(runId, { pages_done: pagesDone, embedding_model: embedder.model }, clock.now())))
        break;
    }
    logger.info({ embedded, model: embedder.model }, 'passages embedded');
    return { embedded, model: embedder.model };
  }

  private async activate({
    runId,
    input,
    outputs,
    logger,
  }: StepContext<IngestionInput>): Promise<{ status: IngestionStatus; passages: number }> {
    const { repository, clock } = this.deps;
    const extracted = outputs.extract as Extracted;
    const withVectors = Boolean((outputs.embed as { model: string | null }).model);
    return this.deps.sequelize.transaction(async (transaction) => {
      const row = await repository.forRun(runId, transaction, true);
      if (!row) return { status: 'superseded' as const, passages: 0 };
      // the resource row lock orders this swap with an unpublish or a new version committing meanwhile
      const current = await repository.currentVersion(input.resourceId, transaction, true);
      const now = clock.now();
      if (!current || current.version_id !== input.versionId || current.status !== 'published') {
        await repository.deleteDrafts(runId, transaction);
        const status: IngestionStatus = current && current.version_id !== input.versionId ? 'superseded' : 'withdrawn';
        await repository.update(runId, { status, finished_at: now }, now, transaction);
        logger.info({ status }, 'ingestion finished without activating');
        return { status, passages: 0 };
      }
      // an unreadable or textless new version still replaces the old version's passages
      const read = ocrResults(outputs);
      const passages = await repository.swapPassages(runId, input.resourceId, withVectors, transaction, {
        pageOrder: read.length > 0,
      });
      const { status, lastError } = outcomeOf(extracted, read, passages);
      await repository.update(
        runId,
        { status, passages, pages_done: extracted.pagesTotal, last_error: lastError, finished_at: now },
        now,
        transaction,
      );
      logger.info({ status, passages }, 'passages activated');
      return { status, passages };
    });
  }
}
