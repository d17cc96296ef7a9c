// Text with its location, from the library's document formats. Each extractor returns units: the text
// of one page (PDF), slide (PowerPoint), sheet (Excel) or heading section (Word), with the page number
// the AI cites (docs/ai.md explains what pageNumber means for each format). Each extractor
// is imported when its format is first met: pdf.js, mammoth and ExcelJS stay out of processes that
// never extract.

import type { Extraction, ExtractionOptions } from './extracted-text.ts';

export {
  cleanText,
  type Extraction,
  type ExtractionOptions,
  type LocationKind,
  type PageNumberSource,
  type TextUnit,
} from './extracted-text.ts';

/** The document cannot be read as its format says (corrupt, encrypted): retrying will not help. */
export class UnreadableDocumentError extends Error {
  override name = 'UnreadableDocumentError';
}

/** Formats with text to extract; the library's other formats (video, audio, SVG) are not ingested. */
export const EXTRACTABLE_FORMATS = ['pdf', 'docx', 'xlsx', 'pptx', 'txt', 'png', 'jpeg'] as const;
export type ExtractableFormat = (typeof EXTRACTABLE_FORMATS)[number];
/** Images: their only text is what OCR reads. */
export const OCR_ONLY_FORMATS: readonly string[] = ['png', 'jpeg'];

/** Whether a format is ingested: images only where OCR is on (config.ai.ocr.enabled). */
export const isExtractable = (format: string, options: { ocr?: boolean } = {}): format is ExtractableFormat =>
  (EXTRACTABLE_FORMATS as readonly string[]).includes(format) &&
  (options.ocr !== false || !OCR_ONLY_FORMATS.includes(format));

type Extractor = (data: Buffer, options: ExtractionOptions) => Extraction | Promise<Extraction>;

async function extractorFor(format: ExtractableFormat): Promise<Extractor> {
  switch (format) {
    case 'pdf':
      return (await import('./pdf.extractor.ts')).extractPdf;
    case 'docx':
      return (await import('./docx.extractor.ts')).extractDocx;
    case 'xlsx':
      return (await import('./xlsx.extractor.ts')).extractXlsx;
    case 'pptx':
      return (await import('./pptx.extractor.ts')).extractPptx;
    case 'txt':
      return (await import('./text.extractor.ts')).extractText;
    case 'png':
    case 'jpeg':
      return (await import('./image.extractor.ts')).extractImage;
  }
}

export async function extractDocument(
  format: ExtractableFormat,
  data: Buffer,
  options: ExtractionOptions = {},
): Promise<Extraction> {
  // outside the try: an extractor that cannot load is the installation's fault, not the document's (retried)
  const extract = await extractorFor(format);
  try {
    return await extract(data, options);
  } catch (error) {
    if (error instanceof UnreadableDocumentError) throw error;
    throw new UnreadableDocumentError(
      `The ${format.toUpperCase()} file could not be read: ${(error as Error)?.message ?? error}`,
      { cause: error },
    );
  }
}
