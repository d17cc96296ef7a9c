// Renders a thumbnail (WebP, 480 px wide at most) from a stored file: images and SVG with sharp, the
// first page of a PDF with pdf-parse's renderer (pdf.js), a poster frame of a video with ffmpeg.
// Office documents and audio get none (no renderer ships with npm; LibreOffice would be needed).
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type { ResourceFormat } from '../resource.model.ts';

const run = promisify(execFile);

export const THUMBNAIL_WIDTH = 480;
export const THUMBNAIL_CONTENT_TYPE = 'image/webp';

type Source = () => Promise<Readable>;

export const IMAGE_FORMATS: ReadonlySet<string> = new Set(['png', 'jpeg', 'svg']);
const VIDEO_FORMATS: ReadonlySet<string> = new Set(['mp4', 'webm']);

/** Which formats get a thumbnail here (docs/library.md says the same). */
export const canRender = (format: ResourceFormat | string): boolean =>
  IMAGE_FORMATS.has(format) || VIDEO_FORMATS.has(format) || format === 'pdf';

const toWebp = async (input: Buffer | Uint8Array) =>
  (await import('sharp'))
    .default(input, { limitInputPixels: 100_000_000 })
    .rotate()
    .resize({ width: THUMBNAIL_WIDTH, withoutEnlargement: true })
    .webp({ quality: 80 })
    .toBuffer();

export class ThumbnailRenderer {
  constructor(private readonly ffmpegPath: () => Promise<string>) {}

  /** The thumbnail's bytes, or null when the format has no renderer. */
  async render(format: ResourceFormat | string, source: Source): Promise<Buffer | null> {
    if (IMAGE_FORMATS.has(format)) return toWebp(await buffer(await source()));
    if (format === 'pdf') return this.pdfFirstPage(source);
    if (VIDEO_FORMATS.has(format)) return this.posterFrame(source);
    return null;
  }

  private async pdfFirstPage(source: Source): Promise<Buffer> {
    // pdf.js needs the whole document in memory; a job runs one at a time, never in a request
    const { PDFParse } = await import('pdf-parse');
    const parser = new PDFParse({ data: new Uint8Array(await buffer(await source())) });
    try {
      const shot = await parser.getScreenshot({
        partial: [1],
        desiredWidth: THUMBNAIL_WIDTH,
        imageBuffer: true,
        imageDataUrl: false,
      });
      const page = shot.pages[0];
      if (!page) throw new Error('the PDF has no first page to render');
      return toWebp(page.data);
    } finally {
      await parser.destroy();
    }
  }

  private async posterFrame(source: Source): Promise<Buffer> {
    // ffmpeg seeks in a file (an MP4's index may sit at its end), so the video goes to a private temp folder
    const dir = await fs.mkdtemp(path.join(tmpdir(), 'thumb-'));
    try {
      const input = path.join(dir, 'in');
      const output = path.join(dir, 'frame.png');
      await pipeline(await source(), createWriteStream(input));
      const ffmpeg = await this.ffmpegPath();
      // one second in, past a fade from black; a shorter video falls back to its first frame
      for (const at of ['1', '0']) {
        await run(
          ffmpeg,
          ['-hide_banner', '-loglevel', 'error', '-y', '-ss', at, '-i', input, '-frames:v', '1', '-an', output],
          { timeout: 60_000 },
        );
        const frame = await fs.readFile(output).catch(() => null);
        if (frame && frame.length > 0) return toWebp(frame);
      }
      throw new Error('ffmpeg produced no frame');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }
}

/** FFMPEG_PATH when set, else the binary inside @ffmpeg-installer/ffmpeg (loaded only when a video needs it). */
export const ffmpegLocator = (configured: string | undefined) => async (): Promise<string> =>
  configured ?? (await import('@ffmpeg-installer/ffmpeg')).default.path;
