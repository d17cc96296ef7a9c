// One pipeline step per page without a text layer (`ocr-page-<n>`): render it, OCR it, draft its passages
// under its own page number. A page is a step so that a long scan shows progress, a retry resumes at the
// page that failed, and pages are read one at a time. The clean-up removes the page's drafts, so a page
// that failed or was interrupted half-way leaves nothing behind.
import { OcrImageError, type OcrEngine, type OcrPage } from '../../integrations/documents/ocr.ts';
import type { PageImages } from '../../integrations/documents/page-images.ts';
import type { PipelineStep } from '../../jobs/pipeline/pipelines.ts';
import type { Clock } from '../../shared/clock.ts';
import type { IngestionRepository } from './ingestion.repository.ts';
import { splitIntoPassages } from './passage.splitter.ts';

const PREFIX = 'ocr-page-';

/** The ingestion's input (ingestion.pipeline.ts), repeated to keep this file a leaf. */
interface IngestionInput {
  resourceId: string;
  versionId: string;
}

/** What one page's step keeps (its pipeline step output). */
export interface OcrPageResult {
  page: number;
  /** Words read, and the sum of their confidences (0-1): the run's mean is recomputed from every page. */
  words: number;
  confidenceSum: number;
  passages: number;
  /** Why the page gave no text when it could not be read at all (a page that does not render or decode). */
  unreadable?: string;
  /** Wall-clock milliseconds: rendering (or preparing) the image, OCR, the whole step. */
  renderMs: number;
  readMs: number;
  ms: number;
}

export interface OcrPageDeps {
  repository: IngestionRepository;
  ocr: OcrEngine;
  clock: Clock;
}

/** The results of the OCR steps among a run's step outputs, in page order. */
export const ocrResults = (outputs: Readonly<Record<string, unknown>>): OcrPageResult[] =>
  Object.entries(outputs)
    .filter(([name]) => name.startsWith(PREFIX))
    .map(([, output]) => output as OcrPageResult)
    .sort((a, b) => a.page - b.page);

export function ocrPageStep(deps: OcrPageDeps, pageNumber: number, images: PageImages): PipelineStep<IngestionInput> {
  return {
    name: `${PREFIX}${pageNumber}`,
    cleanUp: ({ runId }) => deps.repository.deletePageDrafts(runId, pageNumber),
    run: async ({ runId, input, outputs, logger }) => {
      const { repository, clock } = deps;
      const started = Date.now();
      await repository.deletePageDrafts(runId, pageNumber);
      let page: OcrPage = { text: '', words: 0, confidence: null };
      let unreadable: string | undefined;
      let image: Buffer | undefined;
      try {
        image = await images.image(pageNumber);
      } catch (error) {
        // pdf.js or the image decoder refusing this page does so on every retry: the page has no text
        unreadable = `page ${pageNumber} could not be rendered: ${(error as Error)?.message ?? error}`;
      }
      const rendered = Date.now();
      if (image)
        try {
          page = await deps.ocr.read(image);
        } catch (error) {
          // a timeout or a dead worker thread is thrown: the queue retries this page
          if (!(error instanceof OcrImageError)) throw error;
          unreadable = `page ${pageNumber}: ${error.message}`;
        }
      const readMs = Date.now() - rendered;
      const base = await repository.nextDraftOrdinal(runId);
      const passages = splitIntoPassages(
        page.text ? [{ pageNumber, locationKind: 'page', headingPath: null, text: page.text }] : [],
      ).map((passage) => ({ ...passage, ordinal: base + passage.ordinal }));
      const stored = await repository.versionFile(input.versionId);
      if (stored && passages.length)
        await repository.insertDrafts(
          runId,
          { organization_id: stored.organization_id, resource_id: input.resourceId, version_id: input.versionId },
          passages,
        );
      const result: OcrPageResult = {
        page: pageNumber,
        words: page.words,
        confidenceSum: (page.confidence ?? 0) * page.words,
        passages: passages.length,
        ...(unreadable ? { unreadable: unreadable.slice(0, 500) } : {}),
        renderMs: rendered - started,
        readMs,
        ms: Date.now() - started,
      };
      // absolute values from every page's result: a page run twice is not counted twice
      const all = [...ocrResults(outputs).filter((r) => r.page !== pageNumber), result];
      const words = all.reduce((sum, r) => sum + r.words, 0);
      const confidence = words ? all.reduce((sum, r) => sum + r.confidenceSum, 0) / words : null;
      await repository.update(
        runId,
        {
          ocr_pages: all.length,
          ocr_confidence: confidence === null ? null : Math.round(confidence * 1000) / 1000,
          passages: await repository.countDrafts(runId),
        },
        clock.now(),
      );
      logger.info(
        { page: pageNumber, words: page.words, confidence: page.confidence, ms: result.ms, readMs, unreadable },
        'page read by OCR',
      );
      return result;
    },
  };
}

/** Why a document whose pages OCR read ends without text. */
export function ocrNoTextMessage(format: string, results: readonly OcrPageResult[]): string {
  const unreadable = results.filter((r) => r.unreadable).map((r) => r.unreadable);
  const detail = unreadable.length ? ` (${unreadable.join('; ')})` : '';
  if (format !== 'pdf') return `OCR read no text in the image: it holds no legible text${detail}.`;
  const pages = results.map((r) => r.page);
  const which = pages.length === 1 ? `page ${pages[0]}` : `pages ${pages.join(', ')}`;
  return (
    `No text layer was found (the document looks scanned) and OCR read no text on ${which}: blank or illegible` +
    `${detail}. A clearer scan (300 dpi), uploaded as a new version, may be read.`
  );
}
