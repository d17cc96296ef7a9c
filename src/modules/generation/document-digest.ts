// What a podcast and an infographic say about a document, found in its passages without a model:
// sections (by heading, else by page), key sentences (informative, specific, not boilerplate), figures
// (currency, percentages, large counts) with a short label, and numbered steps. Passages overlap
// (ingestion repeats text at their edges), so sentences are de-duplicated.
import { readsLikeHeading } from '../../integrations/documents/text-blocks.ts';
import { splitSentences } from '../../shared/sentences.ts';
import type { SourcePassage } from './source.repository.ts';

export interface Figure {
  /** As written: `$1.2 million`, `42%`, `1,250`. */
  value: string;
  /** Its numeric value in its unit, for charts (percent, currency units or count). */
  amount: number;
  unit: 'percent' | 'currency' | 'count';
  /** A few words saying what the figure measures. */
  label: string;
  sentence: string;
}

export interface Section {
  heading: string;
  sentences: string[];
  keySentences: string[];
  figures: Figure[];
}

export interface DocumentDigest {
  title: string;
  pages: number;
  sections: Section[];
  figures: Figure[];
  steps: string[];
  /** The document's most informative sentences, in reading order. */
  takeaways: string[];
}

const FIGURE =
  /(?:[$€£]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:million|billion|thousand|bn|mn|[mkb])\b)?|\b\d[\d,]*(?:\.\d+)?\s?%|\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b|\b\d+(?:\.\d+)?\s(?:million|billion|thousand)\b)/gi;
const STEP = /^\s*(?:step\s+)?(\d{1,2})[.):]\s+(\S.{2,200})$/i;
const SCALE: Record<string, number> = {
  thousand: 1e3,
  k: 1e3,
  million: 1e6,
  mn: 1e6,
  m: 1e6,
  billion: 1e9,
  bn: 1e9,
  b: 1e9,
};
const STOP = new Set(
  'the a an and or of to in on for with by at from as is are was were be been this that these those it its our their we they he she you your which who has have had not but also more than into over per each all any can will may'.split(
    ' ',
  ),
);

export function splitIntoSentences(text: string): string[] {
  return splitSentences(text.replace(/\s+/g, ' ')).filter((s) => s.split(' ').length >= 4 && /[a-z]/.test(s));
}

function parseFigure(raw: string): Pick<Figure, 'amount' | 'unit'> {
  const text = raw.toLowerCase().replace(/,/g, '');
  const number = Number(/\d+(?:\.\d+)?/.exec(text)?.[0] ?? 'NaN');
  const scale = /(thousand|million|billion|bn|mn|[mkb])\s*$/.exec(text.replace(/%$/, ''))?.[1];
  const amount = number * (scale ? (SCALE[scale] ?? 1) : 1);
  if (text.includes('%')) return { amount: number, unit: 'percent' };
  if (/[$€£]/.test(text)) return { amount, unit: 'currency' };
  return { amount, unit: 'count' };
}

const LINKING =
  /\s*\b(was|were|is|are|be|been|reached|reaching|grew|rose|fell|dropped|increased|decreased|brought|in|totalled|totaled|stood|at|hit|of|to|by|from|up|down|about|around|nearly|almost|over|under|than|more|less|only|just|some|with|and|or|a|an|the)\s*$/i;
const AFTER_STOP =
  /^(in|within|during|for|compared|since|last|this|the|a|an|than|from|to|by|on|at|and|or|up|down|year|years)$/i;

/**
 * The few words that say what a figure measures: for a count, the noun after it ("1,250 members");
 * otherwise the subject before it, without the verb ("Total revenue was $1.2 million" -> "Total
 * revenue", "membership dues 30%" -> "membership dues"); the words after it when nothing precedes.
 */
function labelFor(sentence: string, start: number, end: number, previousEnd: number): string {
  let before = sentence
    .slice(previousEnd, start)
    .split(/[,;:()]|\band\b|\bwhile\b|\bwhereas\b/)
    .pop()!
    .trim();
  for (let previous = ''; previous !== before; ) {
    previous = before;
    before = before.replace(LINKING, '').trim();
  }
  const afterWords: string[] = [];
  for (const word of sentence
    .slice(end)
    .replace(/^\s*of\s+/i, '')
    .split(/[,.;:()]/)[0]!
    .trim()
    .split(/\s+/)
    .filter(Boolean)) {
    if (AFTER_STOP.test(word) || /\d/.test(word) || afterWords.length >= 4) break;
    afterWords.push(word);
  }
  const beforeWords = before.split(/\s+/).filter(Boolean).slice(-5);
  const isCount = !/[%$€£]/.test(sentence.slice(start, end));
  const chosen = isCount && afterWords.length ? afterWords : beforeWords.length ? beforeWords : afterWords;
  const label = chosen.join(' ').replace(/^[^A-Za-z]+|[^A-Za-z)]+$/g, '');
  return label ? label[0]!.toUpperCase() + label.slice(1, 60) : '';
}

export function findFigures(sentence: string): Figure[] {
  const figures: Figure[] = [];
  let previousEnd = 0;
  for (const match of sentence.matchAll(FIGURE)) {
    const value = match[0].trim();
    const start = match.index! + match[0].indexOf(value);
    const end = start + value.length;
    // a bare year is a date, not a statistic
    if (/^\d{4}$/.test(value)) continue;
    figures.push({ value, ...parseFigure(value), label: labelFor(sentence, start, end, previousEnd), sentence });
    previousEnd = end;
  }
  return figures;
}

function headingOf(passage: SourcePassage): string | null {
  if (passage.headingPath)
    return (
      passage.headingPath
        .split(/\s*(?:>|›|»|\/)\s*/)
        .filter(Boolean)
        .pop() ?? null
    );
  // a PDF page's first line, when it reads like a heading (short, no closing full stop)
  const first = passage.content
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean);
  if (first && readsLikeHeading(first.replace(/\s+/g, ' '))) return first;
  return null;
}

function words(text: string): string[] {
  return (
    text
      .toLowerCase()
      .match(/[a-z][a-z'-]+/g)
      ?.filter((w) => !STOP.has(w) && w.length > 2) ?? []
  );
}

function scoreSentence(sentence: string, position: number, frequency: Map<string, number>, heading: string): number {
  const ws = words(sentence);
  if (!ws.length) return 0;
  const length = sentence.split(' ').length;
  const headingWords = new Set(words(heading));
  let score = ws.reduce((sum, w) => sum + Math.log(1 + (frequency.get(w) ?? 0)), 0) / Math.sqrt(ws.length);
  score += ws.filter((w) => headingWords.has(w)).length * 0.8;
  if (findFigures(sentence).length) score += 2;
  if (position === 0) score += 1;
  if (length < 7 || length > 45) score -= 2;
  if (/\b(page|copyright|all rights reserved|table of contents|figure \d|see appendix)\b/i.test(sentence)) score -= 5;
  return score;
}

export function digestDocument(
  title: string,
  passages: readonly SourcePassage[],
  options: { keyPerSection?: number } = {},
): DocumentDigest {
  const keyPerSection = options.keyPerSection ?? 2;
  const sections: Array<{ heading: string; lines: string[] }> = [];
  const seen = new Set<string>();
  const steps = new Map<number, string>();
  for (const passage of passages) {
    const heading = headingOf(passage) ?? `Page ${passage.pageNumber}`;
    let section = sections.at(-1);
    if (!section || section.heading !== heading) sections.push((section = { heading, lines: [] }));
    for (const line of passage.content.split('\n')) {
      const step = STEP.exec(line);
      if (step && !steps.has(Number(step[1]))) steps.set(Number(step[1]), step[2]!.trim().replace(/\.$/, ''));
      const trimmed = line.trim();
      if (trimmed && trimmed !== heading) section.lines.push(step ? '' : trimmed);
    }
  }
  const frequency = new Map<string, number>();
  const built: Section[] = [];
  for (const { heading, lines } of sections) {
    const sentences = splitIntoSentences(lines.join(' ')).filter((s) => {
      const key = s.toLowerCase();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    for (const s of sentences) for (const w of words(s)) frequency.set(w, (frequency.get(w) ?? 0) + 1);
    built.push({ heading, sentences, keySentences: [], figures: sentences.flatMap(findFigures) });
  }
  for (const section of built) {
    const ranked = section.sentences
      .map((sentence, position) => ({
        sentence,
        position,
        score: scoreSentence(sentence, position, frequency, section.heading),
      }))
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, keyPerSection)
      .sort((a, b) => a.position - b.position);
    section.keySentences = ranked.map((r) => r.sentence);
  }
  const nonEmpty = built.filter((s) => s.sentences.length > 0);
  const takeaways = nonEmpty.map((s) => s.keySentences[0]).filter((s): s is string => Boolean(s));
  const orderedSteps = [...steps.entries()].sort(([a], [b]) => a - b).map(([, text]) => text);
  return {
    title,
    pages: passages.reduce((max, p) => Math.max(max, p.pageNumber), 0),
    sections: nonEmpty,
    figures: nonEmpty.flatMap((s) => s.figures),
    steps: orderedSteps.length >= 2 ? orderedSteps : [],
    takeaways,
  };
}
