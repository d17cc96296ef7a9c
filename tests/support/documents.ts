// Document fixtures generated offline, in well under a second each, for every test that needs a real
// PDF, Word, Excel or PowerPoint file (ingestion, retrieval, chat, generated media). Each returns the
// file's bytes; what each page, section, sheet or slide says is exactly what the caller passed.
import ExcelJS from 'exceljs';
import PDFDocument from 'pdfkit';
import pptxgenjs from 'pptxgenjs';
import { Document, HeadingLevel, LastRenderedPageBreak, Packer, PageBreak, Paragraph, TextRun } from 'docx';

/**
 * A PDF with one page per string, each page's text laid out as paragraphs (blank lines split them).
 * An empty string makes a page with no text layer: a drawn shape only, like a scanned page.
 */
export async function makePdf(pages: readonly string[]): Promise<Buffer> {
  const doc = new PDFDocument({
    autoFirstPage: false,
    margin: 50,
    info: { Title: 'Fixture', CreationDate: new Date(0) },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', () => resolve());
    doc.on('error', reject);
  });
  for (const text of pages) {
    doc.addPage({ size: 'A4' });
    if (!text.trim()) {
      // what a scanner produces: marks on the page, no text objects
      doc.rect(80, 80, 400, 300).fillAndStroke('#999', '#333');
      continue;
    }
    for (const paragraph of text.split(/\n{2,}/)) doc.fontSize(11).text(paragraph, { align: 'left' }).moveDown();
  }
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

/** A scanned document: `pages` pages of images and shapes, no text layer at all. */
export const makeScannedPdf = (pages: number): Promise<Buffer> => makePdf(Array.from({ length: pages }, () => ''));

export interface DocxSection {
  heading: string;
  /** 1 (Heading 1) to 3. */
  level?: 1 | 2 | 3;
  paragraphs: readonly string[];
  /** An explicit page break before the heading (Word's Ctrl+Enter). */
  pageBreakBefore?: boolean;
  /** Word's record of its last layout: a page began at this section's heading. */
  lastRenderedPageBreak?: boolean;
}

const HEADINGS = { 1: HeadingLevel.HEADING_1, 2: HeadingLevel.HEADING_2, 3: HeadingLevel.HEADING_3 } as const;

/** A Word document: each section a heading (Heading 1-3 style) and its paragraphs. */
export async function makeDocx(sections: readonly DocxSection[]): Promise<Buffer> {
  const children: Paragraph[] = [];
  for (const section of sections) {
    if (section.pageBreakBefore) children.push(new Paragraph({ children: [new PageBreak()] }));
    const run = section.lastRenderedPageBreak
      ? new TextRun({ children: [new LastRenderedPageBreak(), section.heading] })
      : new TextRun(section.heading);
    children.push(new Paragraph({ heading: HEADINGS[section.level ?? 1], children: [run] }));
    for (const text of section.paragraphs) children.push(new Paragraph({ children: [new TextRun(text)] }));
  }
  const document = new Document({ creator: 'fixture', title: 'Fixture', sections: [{ children }] });
  return Packer.toBuffer(document);
}

export type XlsxCell = string | number | null | { formula: string; result?: number | string };

export interface XlsxSheet {
  name: string;
  rows: ReadonlyArray<readonly XlsxCell[]>;
}

/** An Excel workbook with one worksheet per entry, in order; formula cells carry their cached result. */
export async function makeXlsx(sheets: readonly XlsxSheet[]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.created = new Date(0);
  for (const sheet of sheets) {
    const worksheet = workbook.addWorksheet(sheet.name);
    for (const row of sheet.rows) {
      worksheet.addRow(
        row.map((cell) => (cell && typeof cell === 'object' ? { formula: cell.formula, result: cell.result } : cell)),
      );
    }
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

export interface PptxSlide {
  title?: string;
  bullets?: readonly string[];
  /** Speaker notes. */
  notes?: string;
}

// the package's types describe a CommonJS module (the class is `.default`); its ESM build exports the class
const PptxGenJS = pptxgenjs as unknown as typeof pptxgenjs.default;

/** A PowerPoint deck, one slide per entry (title, bullet text, speaker notes). */
export async function makePptx(slides: readonly PptxSlide[]): Promise<Buffer> {
  const deck = new PptxGenJS();
  for (const spec of slides) {
    const slide = deck.addSlide();
    if (spec.title) slide.addText(spec.title, { x: 0.5, y: 0.3, w: 9, h: 1, fontSize: 28, bold: true });
    if (spec.bullets?.length)
      slide.addText(
        spec.bullets.map((text) => ({ text, options: { bullet: true, breakLine: true } })),
        { x: 0.5, y: 1.5, w: 9, h: 4, fontSize: 16 },
      );
    if (spec.notes) slide.addNotes(spec.notes);
  }
  return Buffer.from((await deck.write({ outputType: 'nodebuffer' })) as Uint8Array);
}

/** Plausible English prose about a topic, `words` long, for passages of a realistic size. */
export function prose(topic: string, words: number): string {
  const sentences = [
    `The ${topic} programme was reviewed by the board this year.`,
    `Members asked how the ${topic} guidance applies to smaller practices.`,
    `Each chapter on ${topic} ends with a checklist and worked examples.`,
    `The committee recommends that ${topic} records are kept for seven years.`,
    `Questions about ${topic} can be raised at the regional meetings.`,
  ];
  const out: string[] = [];
  let count = 0;
  for (let i = 0; count < words; i++) {
    const sentence = sentences[i % sentences.length]!;
    out.push(sentence);
    count += sentence.split(/\s+/).length;
  }
  return out.join(' ');
}
