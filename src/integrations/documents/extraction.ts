// Text with its location, from the library's document formats. Each extractor returns units: the text
// of one page (PDF), slide (PowerPoint), sheet (Excel) or heading section (Word), with the page number
// the AI cites (docs/ai-ingestion.md explains what pageNumber means for each format). Each extractor
// is imported when its format is first met: pdf.js, mammoth and ExcelJS stay out of processes that
// never extract.

export type LocationKind = 'page' | 'slide' | 'sheet' | 'section' | 'text';

export interface TextUnit {
  /** 1-based: the PDF page, the slide, the sheet's position, the Word page (see `pageNumbers`). */
  pageNumber: number;
  locationKind: LocationKind;
  /** Headings above this text, outermost first, joined with ' > ' (Word), or the slide title / sheet name. */
  headingPath: string | null;
  text: string;
}

/**
 * How exact the page numbers are: `exact` (PDF pages, slides, sheet positions), `recorded` (Word page
 * breaks stored in the file: explicit breaks and Word's last rendered layout), `rendered` (a PDF
 * rendering by LibreOffice), `estimated` (by word count).
 */
export type PageNumberSource = 'exact' | 'recorded' | 'rendered' | 'estimated';

export interface Extraction {
  units: TextUnit[];
  /** Pages (slides, sheets) in the document, with or without text. */
  pagesTotal: number;
  pageNumbers: PageNumberSource;
}

/** The document cannot be read as its format says (corrupt, encrypted): retrying will not help. */
export class UnreadableDocumentError extends Error {
  override name = 'UnreadableDocumentError';
}

/** Formats with text to extract; the library's other formats (video, audio, images) are not ingested. */
export const EXTRACTABLE_FORMATS = ['pdf', 'docx', 'xlsx', 'pptx', 'txt'] as const;
export type ExtractableFormat = (typeof EXTRACTABLE_FORMATS)[number];

export const isExtractable = (format: string): format is ExtractableFormat => (EXTRACTABLE_FORMATS as readonly string[]).includes(format);

/** Where the machine's optional tools are (config.ai): LibreOffice renders Word files to find their pages. */
export interface ExtractionOptions {
  libreOfficePath?: string;
}

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
  }
}

export async function extractDocument(format: ExtractableFormat, data: Buffer, options: ExtractionOptions = {}): Promise<Extraction> {
  // outside the try: an extractor that cannot load is the installation's fault, not the document's (retried)
  const extract = await extractorFor(format);
  try {
    return await extract(data, options);
  } catch (error) {
    if (error instanceof UnreadableDocumentError) throw error;
    throw new UnreadableDocumentError(`The ${format.toUpperCase()} file could not be read: ${(error as Error)?.message ?? error}`, { cause: error });
  }
}

/** Whitespace runs to one space, lines kept; control characters other than newlines dropped. */
export function cleanText(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, ' ')
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
