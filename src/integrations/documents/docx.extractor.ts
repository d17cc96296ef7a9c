// Word: one unit per heading section and page. A .docx stores no page numbers of its own; what it may
// record is where pages began: explicit page breaks (`<w:br w:type="page"/>`, `<w:pageBreakBefore/>` on a
// paragraph) and, when Word saved it,
// Word's last layout (`<w:lastRenderedPageBreak/>`). Those become markers in the text mammoth converts
// (headings from the paragraph styles), so each section knows its page. A file recording neither is
// rendered to PDF by LibreOffice where `soffice` is installed, and each section is found on the
// rendering's pages; otherwise pages are estimated by word count (a typical page holds ~450 words).
import JSZip from 'jszip';
import mammoth from 'mammoth';
import {
  cleanText,
  type Extraction,
  type ExtractionOptions,
  type PageNumberSource,
  type TextUnit,
} from './extracted-text.ts';
import { renderWithLibreOffice } from './libreoffice.ts';
import { pdfPageTexts } from './pdf.extractor.ts';

const MARK = '\u2063\u2062\u2063';
const MARK_RUN = `<w:t>${MARK}</w:t>`;
const EXPLICIT_BREAK = /<w:br\b[^>]*\bw:type="page"[^>]*\/>/g;
const RENDERED_BREAK = /<w:lastRenderedPageBreak\s*\/>/g;
// a paragraph formatted "page break before" (often a heading style's direct formatting)
const IN_PPR = String.raw`(?:(?!<\/w:pPr>)[\s\S])*?`;
const BREAK_BEFORE = new RegExp(
  String.raw`(<w:pPr>${IN_PPR}<w:pageBreakBefore(?:\s+w:val="(?:1|true|on)")?\s*\/>${IN_PPR}<\/w:pPr>)`,
  'g',
);
const HEADING = '\u0001';
export const ESTIMATED_WORDS_PER_PAGE = 450;

/** Replaces the recorded page breaks of word/document.xml with a text marker mammoth carries through. */
async function markPageBreaks(data: Buffer): Promise<{ marked: Buffer; breaks: number }> {
  const zip = await JSZip.loadAsync(data);
  const part = zip.file('word/document.xml');
  if (!part) throw new Error('no word/document.xml: not a Word file');
  const xml = await part.async('string');
  let breaks = 0;
  const marked = xml
    .replace(EXPLICIT_BREAK, () => (breaks++, MARK_RUN))
    .replace(RENDERED_BREAK, () => (breaks++, MARK_RUN))
    .replace(BREAK_BEFORE, (pPr: string) => (breaks++, `${pPr}<w:r>${MARK_RUN}</w:r>`));
  if (!breaks) return { marked: data, breaks };
  zip.file('word/document.xml', marked);
  return { marked: await zip.generateAsync({ type: 'nodebuffer' }), breaks };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: ' ' };
const decode = (text: string) =>
  text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) =>
    name[0] === '#'
      ? String.fromCodePoint(
          name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10),
        )
      : (ENTITIES[name] ?? whole),
  );

const cellText = (cell: string) =>
  cell
    .replace(/<\/p>\s*<p[^>]*>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
const looksLikeLabel = (cell: string) => cell.length > 0 && cell.length <= 40 && !/^[\d\s.,%£€$-]+$/u.test(cell);

/**
 * A table as one paragraph per row, so a row's facts stay together in passages and answers. With a
 * first row of labels (short, not figures), each cell reads "Label: value" ("Committee: Audit and
 * Risk; Chair: Helen Marsh; Term ends: 2027."); without, the cells are joined with "; ". Each row ends
 * as a sentence. Word tables otherwise came out with a line break after every cell.
 */
export function tableParagraphs(table: string): string {
  const rows = [...table.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((cell) => cellText(cell[1]!)),
  );
  const [first, ...rest] = rows;
  if (!first) return '';
  const labelled = rest.length > 0 && first.length > 1 && first.every(looksLikeLabel);
  const lines = labelled
    ? rest.map((row) =>
        row
          .map((cell, i) => (cell && first[i] ? `${first[i]}: ${cell}` : cell))
          .filter(Boolean)
          .join('; '),
      )
    : rows.map((row) => row.filter(Boolean).join('; '));
  return lines
    .filter((line) => line.replace(new RegExp(MARK, 'g'), '').trim())
    .map((line) => `<p>${/[.!?:]$/u.test(line) ? line : `${line}.`}</p>`)
    .join('');
}

/** mammoth's HTML as lines: headings prefixed with \u0001<level>, every block on its own line. */
function htmlLines(html: string): string[] {
  const text = html
    // innermost tables first, so a nested table becomes its cell's text
    .replace(/<table[^>]*>((?:(?!<table)[\s\S])*?)<\/table>/g, (table) => tableParagraphs(table))
    .replace(/<table[^>]*>((?:(?!<table)[\s\S])*?)<\/table>/g, (table) => tableParagraphs(table))
    .replace(/<h([1-6])[^>]*>/g, (_, level: string) => `\n${HEADING}${level}`)
    .replace(/<\/(h[1-6]|p|li|tr|table|ul|ol)>|<br\s*\/?>/g, '\n')
    .replace(/<\/t[dh]>/g, ' | ')
    .replace(/<[^>]+>/g, '');
  return decode(text).split('\n');
}

interface Draft {
  pageNumber: number;
  headingPath: string | null;
  lines: string[];
}

/** Walks the lines: headings open sections, page markers (or the word-count estimate) open pages. */
function sections(lines: string[], estimate: boolean): { units: TextUnit[]; pages: number } {
  const drafts: Draft[] = [];
  const headings: string[] = [];
  let page = 1;
  let textOnPage = false;
  let wordsOnPage = 0;
  let current: Draft | undefined;
  const open = () => (
    (current = { pageNumber: page, headingPath: headings.length ? headings.join(' > ') : null, lines: [] }),
    drafts.push(current),
    current
  );
  const nextPage = () => {
    // a break with nothing before it since the last one (Word records a rendered break right after an
    // explicit one) does not start another page
    if (!textOnPage) return;
    page++;
    textOnPage = false;
    wordsOnPage = 0;
    current = undefined;
  };
  for (const raw of lines) {
    let line = raw;
    let level = 0;
    if (line.startsWith(HEADING)) {
      level = Number(line[1]);
      line = line.slice(2);
    }
    const parts = line.split(MARK);
    for (const [i, part] of parts.entries()) {
      if (i > 0) nextPage();
      const text = part.trim();
      if (!text) continue;
      if (level) {
        headings.splice(level - 1, headings.length, text);
        open();
        textOnPage = true;
        continue;
      }
      const words = text.split(/\s+/).length;
      if (estimate && wordsOnPage > 0 && wordsOnPage + words > ESTIMATED_WORDS_PER_PAGE) nextPage();
      (current ?? open()).lines.push(text);
      textOnPage = true;
      wordsOnPage += words;
    }
  }
  const units = drafts
    .map((draft) => ({
      pageNumber: draft.pageNumber,
      locationKind: 'section' as const,
      headingPath: draft.headingPath,
      text: cleanText(draft.lines.join('\n')),
    }))
    .filter((unit) => unit.text.length > 0);
  return { units, pages: page };
}

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * Finds each unit on the pages of a rendering: the page holding its first words, searching forward from
 * the previous unit's page (documents read in order). A unit not found keeps the previous unit's page.
 */
export function locateInPages(units: readonly TextUnit[], pageTexts: readonly string[]): TextUnit[] {
  const pages = pageTexts.map((text) => ` ${words(text).join(' ')} `);
  let from = 0;
  return units.map((unit) => {
    const probe = ` ${words(unit.text).slice(0, 8).join(' ')} `;
    const found = probe.trim() ? pages.findIndex((text, index) => index >= from && text.includes(probe)) : -1;
    if (found >= 0) from = found;
    return { ...unit, pageNumber: Math.min(from, Math.max(pages.length - 1, 0)) + 1 };
  });
}

export async function extractDocx(data: Buffer, options: ExtractionOptions = {}): Promise<Extraction> {
  const { marked, breaks } = await markPageBreaks(data);
  const { value: html } = await mammoth.convertToHtml({ buffer: marked }, { ignoreEmptyParagraphs: true });
  const lines = htmlLines(html);
  if (breaks) {
    const { units, pages } = sections(lines, false);
    return { units, pagesTotal: pages, pageNumbers: 'recorded' };
  }
  const rendered = await renderWithLibreOffice(data, 'docx', { sofficePath: options.libreOfficePath });
  if (rendered) {
    const pageTexts = await pdfPageTexts(rendered);
    const { units } = sections(lines, false);
    return { units: locateInPages(units, pageTexts), pagesTotal: pageTexts.length, pageNumbers: 'rendered' };
  }
  const { units, pages } = sections(lines, true);
  const source: PageNumberSource = 'estimated';
  return { units, pagesTotal: pages, pageNumbers: source };
}
