// Splits located text into overlapping passages for retrieval. A passage never crosses a page (slide,
// sheet, section) boundary, so it keeps one page number and one heading path. Passages end on sentence
// or line boundaries near the target length and repeat the last ~20% of the previous passage, so a
// sentence that straddles two passages is whole in at least one of them.
import type { TextUnit } from '../../integrations/documents/extraction.ts';
import { splitSentences } from '../../shared/sentences.ts';

export interface SplitOptions {
  /** A passage aims at this many words ... */
  targetWords: number;
  /** ... and never exceeds this many (a longer sentence is cut by words). */
  maxWords: number;
  /** Words repeated from the end of the previous passage. */
  overlapWords: number;
}

export const DEFAULT_SPLIT: SplitOptions = { targetWords: 180, maxWords: 250, overlapWords: 40 };

export interface Passage extends TextUnit {
  /** Position in the document, from 0. */
  ordinal: number;
}

const wordCount = (text: string) => (text.match(/\S+/g) ?? []).length;

/** Sentences (or lines, for sheets and slides), each cut by words when longer than `maxWords`. */
function segments(text: string, maxWords: number): Array<{ text: string; endsLine: boolean }> {
  const out: Array<{ text: string; endsLine: boolean }> = [];
  for (const line of text.split('\n')) {
    for (const sentence of splitSentences(line)) {
      const words = sentence.split(/\s+/).filter(Boolean);
      for (let i = 0; i < words.length; i += maxWords)
        out.push({ text: words.slice(i, i + maxWords).join(' '), endsLine: false });
    }
    if (out.length) out[out.length - 1]!.endsLine = true;
  }
  return out;
}

/** Segments joined as they stood: a space within a line, a newline where a line ended. */
const join = (parts: ReadonlyArray<{ text: string; endsLine: boolean }>) =>
  parts
    .map((part) => part.text + (part.endsLine ? '\n' : ' '))
    .join('')
    .trim();

/** One unit's passages: windows of whole segments, each starting with the previous window's tail. */
export function splitUnit(text: string, options: SplitOptions = DEFAULT_SPLIT): string[] {
  const parts = segments(text, options.maxWords);
  const counts = parts.map((part) => wordCount(part.text));
  const total = counts.reduce((a, b) => a + b, 0);
  if (total <= options.maxWords) return total ? [join(parts)] : [];
  const passages: string[] = [];
  let start = 0;
  while (start < parts.length) {
    let end = start;
    let words = 0;
    while (
      end < parts.length &&
      (words === 0 ||
        words + counts[end]! <= options.targetWords ||
        (words < options.targetWords / 2 && words + counts[end]! <= options.maxWords))
    ) {
      words += counts[end]!;
      end++;
    }
    passages.push(join(parts.slice(start, end)));
    if (end >= parts.length) break;
    // back up whole segments covering ~overlapWords, but always move forward
    let next = end;
    let overlap = 0;
    while (next - 1 > start && overlap + counts[next - 1]! <= options.overlapWords) overlap += counts[--next]!;
    start = next;
  }
  return passages;
}

export function splitIntoPassages(units: readonly TextUnit[], options: SplitOptions = DEFAULT_SPLIT): Passage[] {
  const passages: Passage[] = [];
  for (const unit of units) {
    for (const text of splitUnit(unit.text, options)) passages.push({ ...unit, text, ordinal: passages.length });
  }
  return passages;
}
