// PDF: one unit per page, with the exact page number (pdf-parse over pdf.js); pages without a text layer
// are listed, and rendered as images for OCR (PdfPageRenderer).
import { PDFParse } from 'pdf-parse';
import { cleanText, type Extraction } from './extracted-text.ts';

export async function extractPdf(data: Buffer): Promise<Extraction> {
  // pdf.js takes ownership of (and may detach) the array it is given: hand it a copy
  const parser = new PDFParse({ data: new Uint8Array(data) });
  try {
    const result = await parser.getText();
    const pages = result.pages.map((page) => ({
      pageNumber: page.num,
      locationKind: 'page' as const,
      headingPath: null,
      text: cleanText(page.text),
    }));
    return {
      units: pages.filter((unit) => unit.text.length > 0),
      pagesTotal: result.total,
      pageNumbers: 'exact',
      // a scanned page is an image without text objects: OCR may read it
      pagesWithoutText: pages.filter((unit) => !unit.text).map((unit) => unit.pageNumber),
    };
  } finally {
    await parser.destroy();
  }
}

/** The text of each page of a PDF, in order (LibreOffice renderings of Word files). */
export async function pdfPageTexts(data: Buffer): Promise<string[]> {
  const parser = new PDFParse({ data: new Uint8Array(data) });
  try {
    return (await parser.getText()).pages.map((page) => page.text);
  } finally {
    await parser.destroy();
  }
}

/** A rendered page stays under this many pixels (a poster-sized page at 300 dpi would take gigabytes). */
const MAX_PAGE_PIXELS = 24_000_000;

/** Renders pages of one PDF as PNG images for OCR; the document is parsed once, `close()` lets it go. */
export class PdfPageRenderer {
  private readonly parser: PDFParse;

  constructor(data: Buffer) {
    this.parser = new PDFParse({ data: new Uint8Array(data) });
  }

  /** Page `pageNumber` (1-based) at `dpi` (less for very large pages). */
  async render(pageNumber: number, dpi: number): Promise<Buffer> {
    const info = await this.parser.getInfo({ parsePageInfo: true, partial: [pageNumber] });
    const size = info.pages[0];
    const wanted = dpi / 72;
    const scale = size ? Math.min(wanted, Math.sqrt(MAX_PAGE_PIXELS / Math.max(1, size.width * size.height))) : wanted;
    const shot = await this.parser.getScreenshot({ scale, partial: [pageNumber], imageDataUrl: false });
    const page = shot.pages[0];
    if (!page) throw new Error(`The PDF has no page ${pageNumber}`);
    return Buffer.from(page.data);
  }

  close(): Promise<void> {
    return this.parser.destroy();
  }
}
