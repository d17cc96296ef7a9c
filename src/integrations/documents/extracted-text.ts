// What every extractor returns, and the text clean-up they share: a leaf, so that the extractors and
// the dispatcher that loads them (extraction.ts) do not import each other.

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
  /** Pages with no text to extract that OCR may read (PDF pages without a text layer, an image). */
  pagesWithoutText?: number[];
}

/** Where the machine's optional tools are (config.ai): LibreOffice renders Word files to find their pages. */
export interface ExtractionOptions {
  libreOfficePath?: string;
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
