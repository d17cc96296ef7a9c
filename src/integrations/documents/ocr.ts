// OCR of page images: tesseract.js 7 (Tesseract's LSTM engine in WebAssembly, on a worker thread) with the
// English model of @tesseract.js-data/eng, read from node_modules: nothing is downloaded or cached on disk.
// One engine per process reads one page at a time (a page costs ~1-3 s of one core and ~300 MB), so
// concurrent ingestions queue here instead of multiplying that memory. Settings that matter
// (../shared/notes/ai-media.md): PSM.AUTO finds columns (the default interleaves side-by-side columns),
// cacheMethod 'none' keeps it from writing the model into the working folder, langPath + gzip point at
// the package's model so it never reaches for a CDN.
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Worker as Thread } from 'node:worker_threads';
import type Tesseract from 'tesseract.js';
import { cleanText } from './extracted-text.ts';

/** What OCR read on one page. */
export interface OcrPage {
  /** Paragraphs (one line each, blank lines between) in reading order, columns one after the other. */
  text: string;
  /** Words (with a letter or digit) in `text`. */
  words: number;
  /** Mean word confidence of those words, 0 to 1; null when there are none. */
  confidence: number | null;
}

/** Reads the text of a page image (PNG or JPEG bytes). */
export interface OcrEngine {
  read(image: Buffer): Promise<OcrPage>;
  close(): Promise<void>;
}

/** The image could not be decoded: the same on every retry. */
export class OcrImageError extends Error {
  override name = 'OcrImageError';
}

export interface TesseractOcrOptions {
  /** A page taking longer is abandoned (the worker thread is terminated) and the read fails. */
  pageTimeoutMs?: number;
  /** The worker thread (and its ~100-300 MB) is let go after this long without a page. */
  idleMs?: number;
}

const require = createRequire(import.meta.url);
/** The integer-quantised "best" LSTM model: Tesseract's most accurate English at a moderate size. */
const MODEL_DIR = path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');

// Scanner speckles come back as short punctuation "words" or low-confidence letters: what is kept
const HAS_ALNUM = /[\p{L}\p{N}]/u;
const keepWord = (word: Tesseract.Word) =>
  HAS_ALNUM.test(word.text)
    ? word.confidence >= 30 || word.text.replace(/[^\p{L}]/gu, '').length >= 3
    : word.confidence >= 60;
/** A page counts as read when OCR trusts at least one of its words this much (0-100). */
const TRUSTED_WORD = 50;

/** A paragraph's lines as one line (sentences then read whole); a word hyphenated at a line end is joined. */
const joinLines = (lines: readonly string[]) =>
  lines.reduce((text, line) =>
    /\p{L}-$/u.test(text) && /^\p{Ll}/u.test(line) ? text.slice(0, -1) + line : `${text} ${line}`,
  );

/** Text and word statistics from Tesseract's blocks -> paragraphs -> lines -> words. */
export function ocrPageOf(page: Tesseract.Page): OcrPage {
  const paragraphs: string[] = [];
  let words = 0;
  let confidenceSum = 0;
  let trusted = false;
  for (const block of page.blocks ?? [])
    for (const paragraph of block.paragraphs) {
      const lines: string[] = [];
      for (const line of paragraph.lines) {
        const kept = line.words.filter(keepWord);
        for (const word of kept)
          if (HAS_ALNUM.test(word.text)) {
            words += 1;
            confidenceSum += word.confidence;
            trusted ||= word.confidence >= TRUSTED_WORD;
          }
        if (kept.length) lines.push(kept.map((word) => word.text).join(' '));
      }
      if (lines.length) paragraphs.push(joinLines(lines));
    }
  if (!trusted) return { text: '', words: 0, confidence: null };
  return {
    text: cleanText(paragraphs.join('\n\n')),
    words,
    confidence: Math.round((confidenceSum / words) * 10) / 1000,
  };
}

/** One worker thread, created on the first page, pages read one at a time, terminated when idle or closed. */
export class TesseractOcr implements OcrEngine {
  private worker: Promise<{ worker: Tesseract.Worker; thread: Thread; died: Promise<never> }> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private idle: NodeJS.Timeout | undefined;
  private readonly pageTimeoutMs: number;
  private readonly idleMs: number;

  constructor(options: TesseractOcrOptions = {}) {
    this.pageTimeoutMs = options.pageTimeoutMs ?? 120_000;
    this.idleMs = options.idleMs ?? 30_000;
  }

  read(image: Buffer): Promise<OcrPage> {
    const result = this.queue.then(() => this.recognize(image));
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Ends the worker thread now: a page under way fails (its step is retried by the next worker). */
  async close(): Promise<void> {
    clearTimeout(this.idle);
    await this.stop();
  }

  private async recognize(image: Buffer): Promise<OcrPage> {
    clearTimeout(this.idle);
    let timer: NodeJS.Timeout | undefined;
    try {
      const { worker, thread, died } = await this.start();
      thread.ref(); // a page under way keeps the process alive; an idle thread does not
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`OCR took longer than ${this.pageTimeoutMs} ms`)),
          this.pageTimeoutMs,
        );
      });
      const result = await Promise.race([worker.recognize(image, {}, { blocks: true, text: false }), died, timeout]);
      thread.unref();
      return ocrPageOf(result.data);
    } catch (error) {
      // a worker that failed, hung or died is not trusted with the next page
      await this.stop();
      const message = String((error as Error)?.message ?? error);
      if (/read image/i.test(message)) throw new OcrImageError(`The image could not be read: ${message}`);
      throw error instanceof Error ? error : new Error(message);
    } finally {
      clearTimeout(timer);
      this.idle = setTimeout(() => void this.stop(), this.idleMs);
      this.idle.unref();
    }
  }

  private start() {
    this.worker ??= (async () => {
      const { createWorker, OEM, PSM } = (await import('tesseract.js')).default;
      const worker = await createWorker('eng', OEM.LSTM_ONLY, {
        langPath: MODEL_DIR,
        gzip: true,
        cacheMethod: 'none',
        // without a handler tesseract.js rethrows a failed job from its message listener: the process dies
        errorHandler: () => undefined,
      });
      const thread = (worker as unknown as { worker: Thread }).worker;
      // an 'error' event without a listener would be thrown in this process
      const died = new Promise<never>((_, reject) => {
        thread.once('error', reject);
        thread.once('exit', (code) => reject(new Error(`The OCR worker thread exited (code ${code})`)));
      });
      died.catch(() => undefined);
      // Tesseract's diagnostics ("Estimating resolution as ...") go to a file nobody reads, not the log
      await worker.setParameters({ tessedit_pageseg_mode: PSM.AUTO, debug_file: '/dev/null' });
      thread.unref();
      return { worker, thread, died };
    })();
    const starting = this.worker;
    starting.catch(() => {
      if (this.worker === starting) this.worker = null;
    });
    return starting;
  }

  private async stop(): Promise<void> {
    const current = this.worker;
    this.worker = null;
    if (!current) return;
    const started = await current.catch(() => null);
    await started?.worker.terminate();
  }
}
