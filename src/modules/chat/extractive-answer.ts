// Search mode: an answer made of the sentences of the best passages that answer the question, not the
// passages themselves. Each sentence is scored by the question's content words it contains and, when
// vectors are on, by its cosine similarity to the question (one embedding batch for the candidates).
import { textBlocks, type TextBlock } from '../../integrations/documents/text-blocks.ts';
import type { RetrievedPassage } from './passage-retrieval.repository.ts';

export interface Sentence {
  passage: RetrievedPassage;
  text: string;
  /** Position in the passage, to keep document order in the answer. */
  position: number;
  score: number;
}

const STOPWORDS = new Set(
  'a an and are as at be been being but by can could did do does for from had has have how i if in into is it its may me my no not of on or our should so than that the their them then there these they this those to was we were what when where which while who whom why will with would you your about after before also any each more most other some such only own same too very just over under again further once here all both few nor off out up down'.split(
    ' ',
  ),
);

/** Lower-cased content words with a light suffix strip, so "refunds" meets "refund". */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? [])
    .filter((word) => !STOPWORDS.has(word) && word.length > 1)
    .map((word) =>
      word.replace(/(ies|es|s|ing|ed)$/u, (suffix) =>
        word.length - suffix.length >= 3 ? (suffix === 'ies' ? 'y' : '') : suffix,
      ),
    );
}

/** Words a line of its own needs to be quoted as an answer: fewer, and it is a heading. */
const MIN_STANDALONE_WORDS = 4;

const isHeading = (block: TextBlock) => block.standalone && block.text.split(' ').length < MIN_STANDALONE_WORDS;

/** The sentences of a passage; a heading on a line of its own is neither one nor part of the next. */
export function splitSentences(text: string): string[] {
  return textBlocks(text)
    .filter((block) => !isHeading(block))
    .flatMap((block) => (block.standalone ? [block.text] : block.text.split(/(?<=[.!?])\s+(?=[A-Z0-9"'(])/u)))
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length >= 12);
}

const cosine = (a: readonly number[], b: readonly number[]) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
};

export interface ExtractOptions {
  query: string;
  /** The question's vector; with `embed`, sentences are also scored semantically. */
  queryVector?: number[] | null;
  embed?: (texts: string[]) => Promise<number[][]>;
  maxSentences?: number;
  maxChars?: number;
}

/**
 * The sentences that answer, best first. They come from the best passage (the page the answer cites
 * first); a sentence of the next two passages joins only when it scores as well as the best one.
 */
export async function pickSentences(
  passages: readonly RetrievedPassage[],
  options: ExtractOptions,
): Promise<Sentence[]> {
  const terms = new Set(contentWords(options.query));
  const candidates: Sentence[] = [];
  passages.slice(0, 3).forEach((passage, rank) => {
    splitSentences(passage.content).forEach((text, position) => {
      const words = new Set(contentWords(text));
      const overlap = terms.size ? [...terms].filter((term) => words.has(term)).length / terms.size : 0;
      // earlier passages are better evidence: a small tie-breaking preference
      // the best passage is the evidence: the others must clearly beat it to be quoted
      candidates.push({ passage, text, position, score: overlap - rank * 0.25 });
    });
  });
  if (!candidates.length) return [];
  if (options.queryVector && options.embed) {
    try {
      const vectors = await options.embed(candidates.map((candidate) => candidate.text));
      candidates.forEach((candidate, i) => {
        const similarity = vectors[i] ? cosine(options.queryVector!, vectors[i]!) : 0;
        candidate.score = 0.6 * similarity + 0.4 * candidate.score;
      });
    } catch {
      // lexical scores stand
    }
  }
  candidates.sort((a, b) => b.score - a.score);
  // the answer leads with the best passage: a single sentence elsewhere that happens to sit closer to
  // the question does not outrank the passage the whole of the evidence chose
  const best = candidates.find((candidate) => candidate.passage === passages[0]) ?? candidates[0]!;
  const picked = [best];
  const maxSentences = options.maxSentences ?? 2;
  const maxChars = options.maxChars ?? 600;
  let length = best.text.length;
  for (const candidate of candidates) {
    if (picked.length >= maxSentences) break;
    if (candidate === best) continue;
    if (candidate.score < best.score * 0.85 || length + candidate.text.length > maxChars) continue;
    picked.push(candidate);
    length += candidate.text.length;
  }
  return picked;
}

/** The answer text: the picked sentences, grouped by passage, each group naming where it comes from. */
export function composeAnswer(sentences: readonly Sentence[]): string {
  const groups = new Map<string, Sentence[]>();
  for (const sentence of sentences)
    groups.set(sentence.passage.id, [...(groups.get(sentence.passage.id) ?? []), sentence]);
  return [...groups.values()]
    .map((group) => {
      const { resourceName, pageNumber } = group[0]!.passage;
      const text = group
        .sort((a, b) => a.position - b.position)
        .map((s) => s.text)
        .join(' ');
      return `${text} (${resourceName}, page ${pageNumber})`;
    })
    .join('\n\n');
}

/**
 * A short excerpt of a passage around the given sentence, with its heading path when it has one. A
 * heading on a line of its own inside the text (a PDF page's) is followed by a colon, so it reads as
 * one ("Site inspections: Every bridge site…") instead of running into the sentence under it.
 */
export function excerptOf(passage: RetrievedPassage, focus?: string, maxChars = 300): string {
  const blocks = textBlocks(passage.content);
  const content = blocks
    .map((block, i) => (block.standalone && i < blocks.length - 1 ? `${block.text}:` : block.text))
    .join(' ');
  let excerpt = content;
  if (content.length > maxChars) {
    const at = focus ? Math.max(0, content.indexOf(focus)) : 0;
    const start = Math.max(0, Math.min(at, content.length - maxChars));
    excerpt = `${start > 0 ? '…' : ''}${content.slice(start, start + maxChars).trim()}${start + maxChars < content.length ? '…' : ''}`;
  }
  return passage.headingPath ? `${passage.headingPath}: ${excerpt}` : excerpt;
}
