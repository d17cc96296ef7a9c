// PDF: one unit per page, with the exact page number (pdf-parse over pdf.js).
import { PDFParse } from 'pdf-parse';
import { cleanText, type Extraction } from './extracted-text.ts';

export async function extractPdf(data: Buffer): Promise<Extraction> {
  // pdf.js takes ownership of (and may detach) the array it is given: hand it a copy
  const parser = new PDFParse({ data: new Uint8Array(data) });
  try {
    const result = await parser.getText();
    const units = result.pages
      .map((page) => ({
        pageNumber: page.num,
        locationKind: 'page' as const,
        headingPath: null,
        text: cleanText(page.text),
      }))
      .filter((unit) => unit.text.length > 0);
    return { units, pagesTotal: result.total, pageNumbers: 'exact' };
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
