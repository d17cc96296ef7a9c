// The pages of one stored file as images for OCR, during one run of an ingestion: the file is read once,
// a PDF is parsed once and rendered page by page; close() lets go of pdf.js's document.
import type { PdfPageRenderer } from './pdf.extractor.ts';

export interface StoredDocument {
  format: string;
  data: Buffer;
}

/** Scanned text reads best around 300 dpi (Tesseract's own advice); pages are rendered at this. */
export const OCR_DPI = 300;

export class PageImages {
  private document: Promise<StoredDocument> | undefined;
  private renderer: Promise<PdfPageRenderer> | undefined;

  constructor(private readonly load: () => Promise<StoredDocument>) {}

  /** The file's bytes (read from storage on first use). */
  file(): Promise<StoredDocument> {
    this.document ??= this.load();
    return this.document;
  }

  /** Page `pageNumber` as an image OCR reads: a PDF page rendered, or the image itself upright and grey. */
  async image(pageNumber: number, dpi = OCR_DPI): Promise<Buffer> {
    const { format, data } = await this.file();
    if (format !== 'pdf') return (await import('./image.extractor.ts')).imageForOcr(data);
    this.renderer ??= import('./pdf.extractor.ts').then(({ PdfPageRenderer }) => new PdfPageRenderer(data));
    return (await this.renderer).render(pageNumber, dpi);
  }

  async close(): Promise<void> {
    const renderer = this.renderer;
    this.renderer = undefined;
    await (await renderer?.catch(() => undefined))?.close();
  }
}
