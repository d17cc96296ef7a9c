// Search mode: an answer made of the sentences of the best passages that answer the question, not the
// passages themselves. Each sentence is scored by the question's content words it contains and, when
// vectors are on, by its cosine similarity to the question (one embedding batch for the candidates).
import { textBlocks, type TextBlock } from '../../integrations/documents/text-blocks.ts';
import { splitSentences as sentencesOf } from '../../shared/sentences.ts';
import { expectedAnswerType, holdsAnswerType, questionFocus } from './answer-type.ts';
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

/** A light suffix strip (plural, -ing, -ed, final e), so "refunds" meets "refund" and "agreed" "agree". */
function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  if (w.length >= 6 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length >= 5 && w.endsWith('ed')) return w.slice(0, -2);
  return w.length >= 4 && w.endsWith('e') ? w.slice(0, -1) : w;
}

/** Lower-cased content words, stemmed lightly. */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? [])
    .filter((word) => !STOPWORDS.has(word) && word.length > 1)
    .map(stem);
}

/** Words a line of its own needs to be quoted as an answer: fewer, and it is a heading. */
const MIN_STANDALONE_WORDS = 4;

const isHeading = (block: TextBlock) => block.standalone && block.text.split(' ').length < MIN_STANDALONE_WORDS;

/** A page label on a line of its own: "Page 3", "Page 3 of 12", "3", "- 3 -", "3 / 12". */
const PAGE_LABEL = /^[-–—\s]*(page|p\.|slide)?\s*\d{1,4}(\s*(of|\/)\s*\d{1,4})?[-–—\s]*$/iu;

/**
 * The text without its page furniture: page labels, and the lines found repeating at the top or foot
 * of the resource's pages (running titles, headers, footers; PassageRetrieval.repeatedLines).
 */
export function withoutFurniture(text: string, furniture?: ReadonlySet<string>): string {
  return text
    .split('\n')
    .filter((line) => {
      const trimmed = line.trim();
      return !PAGE_LABEL.test(trimmed) && !furniture?.has(trimmed);
    })
    .join('\n');
}

/** The sentences of a passage; a heading on a line of its own is neither one nor part of the next. */
export function splitSentences(text: string, furniture?: ReadonlySet<string>): string[] {
  return textBlocks(withoutFurniture(text, furniture))
    .filter((block) => !isHeading(block))
    .flatMap((block) => (block.standalone ? [block.text] : sentencesOf(block.text)))
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
  /** How specific each of the question's words is in the library, 0..1 (PassageRetrieval.termWeights). */
  termWeights?: ReadonlyMap<string, number>;
  /** Lines repeating across a resource's pages (headers, footers), never quoted. */
  furniture?: ReadonlySet<string>;
  /** Passages whose sentences are candidates (default 3). */
  passages?: number;
}

/** What a sentence offers as an answer: the inputs of the confidence (chat.evidence.ts). */
export interface SentenceFeatures {
  /** Share of the question's weighted words in the sentence, its heading and its resource's name. */
  termCoverage: number;
  /** Weight of the most specific question word found elsewhere in the library but not in the passage. */
  missingTerm: number;
  /** 1 when the sentence holds the kind of answer asked for (an amount, a date, a name), else 0. */
  typeMatch: number;
  /** Cosine of the sentence to the question (0 without vectors). */
  similarity: number;
  /** Share of the question's focus words ("which hotel", "the parking fee") the sentence never names. */
  focusMissing: number;
}

export interface ScoredSentence extends Sentence {
  features: SentenceFeatures;
  /** The passage's position among the candidates' passages (0 = retrieval's best). */
  rank: number;
}

/**
 * Words of the question's form rather than its subject ("how long", "do I have to ask"): the answer
 * type stands for them, and no answering sentence needs to repeat them.
 */
const QUESTION_FORM = new Set(
  'long much many often soon ask need know tell find get want like please happen exactly kind sort type able allow allowed'.split(
    ' ',
  ),
);

/** The question's subject words, which an answering sentence is expected to share. */
export const questionTerms = (query: string): string[] =>
  [...new Set(contentWords(query))].filter((word) => !QUESTION_FORM.has(word));

/** A sentence of another passage replaces the best passage's lead only with this much more lexical support. */
const LEAD_MARGIN = 0.3;

/**
 * The initials of runs of capitalised words ("Continuing Professional Development" → "cpd"), so a
 * question using a document's abbreviation meets the page that spells the name out.
 */
export function acronyms(text: string): string[] {
  const out = new Set<string>();
  let run: string[] = [];
  const close = () => {
    // every stretch of 2 to 5 words of the run: "Continuing Professional Development Policy" gives
    // "cpd" as well as "cpdp"
    for (let i = 0; i < run.length; i++)
      for (let j = i + 2; j <= Math.min(run.length, i + 5); j++) out.add(run.slice(i, j).join(''));
    run = [];
  };
  for (const word of text.match(/[\p{L}]+/gu) ?? []) {
    if (/^\p{Lu}\p{Ll}+$/u.test(word)) run.push(word[0]!.toLowerCase());
    else close();
  }
  close();
  return [...out];
}

const wordSet = (...texts: Array<string | null | undefined>) =>
  new Set(texts.flatMap((t) => (t ? [...contentWords(t), ...acronyms(t)] : [])));

/**
 * Every candidate sentence with its features and a selection score, best first; `lead` is the one the
 * answer starts with: the best sentence of the retrieval's best passage, unless a sentence of another
 * passage has clearly more of the question's specific words and the answer type the question wants.
 */
export async function scoreSentences(
  passages: readonly RetrievedPassage[],
  options: ExtractOptions,
): Promise<{ candidates: ScoredSentence[]; lead: ScoredSentence | undefined }> {
  const terms = questionTerms(options.query);
  const weight = (term: string) => (options.termWeights ? (options.termWeights.get(term) ?? 0.5) : 1);
  const total = terms.reduce((sum, term) => sum + weight(term), 0);
  const type = expectedAnswerType(options.query);
  const focus = [...new Set(contentWords(questionFocus(options.query).join(' ')))];
  const candidates: ScoredSentence[] = [];
  passages.slice(0, options.passages ?? 3).forEach((passage, rank) => {
    const context = wordSet(passage.headingPath, passage.resourceName);
    const inPassage = wordSet(passage.content, passage.headingPath, passage.resourceName);
    // a word the library has elsewhere but this passage lacks; words the library never uses say nothing
    // here (a paraphrase is made of them)
    const missingTerm = terms.reduce(
      (max, term) => (inPassage.has(term) || weight(term) >= 0.999 ? max : Math.max(max, weight(term))),
      0,
    );
    splitSentences(passage.content, options.furniture).forEach((text, position) => {
      const words = wordSet(text);
      const covered = terms.reduce((sum, term) => sum + (words.has(term) || context.has(term) ? weight(term) : 0), 0);
      candidates.push({
        passage,
        text,
        position,
        rank,
        score: 0,
        features: {
          termCoverage: total ? covered / total : 0,
          missingTerm,
          typeMatch: holdsAnswerType(type, text, options.query) ? 1 : 0,
          similarity: 0,
          focusMissing: focus.length
            ? focus.filter((word) => !words.has(word) && !context.has(word)).length / focus.length
            : 0,
        },
      });
    });
  });
  if (!candidates.length) return { candidates, lead: undefined };
  let semantic = false;
  if (options.queryVector && options.embed) {
    try {
      const vectors = await options.embed(candidates.map((candidate) => candidate.text));
      candidates.forEach((candidate, i) => {
        candidate.features.similarity = vectors[i] ? cosine(options.queryVector!, vectors[i]!) : 0;
      });
      semantic = true;
    } catch {
      // lexical scores stand
    }
  }
  for (const candidate of candidates) {
    const { termCoverage, typeMatch, similarity, focusMissing } = candidate.features;
    // earlier passages are better evidence: a small preference for the retrieval's order
    candidate.score =
      (semantic ? 0.5 * similarity + 0.35 * termCoverage : 0.85 * termCoverage) +
      0.15 * typeMatch -
      0.1 * focusMissing -
      0.05 * candidate.rank;
  }
  candidates.sort((a, b) => b.score - a.score);
  const lexical = (c: ScoredSentence) => c.features.termCoverage + 0.15 * c.features.typeMatch;
  // the answer leads with the best passage: a single sentence elsewhere that merely sits closer to the
  // question does not outrank the passage the whole of the evidence chose
  let lead = candidates.find((candidate) => candidate.passage === passages[0]) ?? candidates[0]!;
  const challenger = candidates.find((c) => c.passage !== lead.passage);
  if (challenger && challenger.score > lead.score && lexical(challenger) >= lexical(lead) + LEAD_MARGIN)
    lead = challenger;
  return { candidates, lead };
}

/**
 * The sentences that answer, best first. They come from the best passage (the page the answer cites
 * first); a sentence of the next two passages joins only when it scores as well as the best one.
 */
export async function pickSentences(
  passages: readonly RetrievedPassage[],
  options: ExtractOptions,
): Promise<ScoredSentence[]> {
  const { candidates, lead } = await scoreSentences(passages, options);
  return lead ? extendLead(lead, candidates, options) : [];
}

/** The lead sentence and up to `maxSentences - 1` others scoring nearly as well, within `maxChars`. */
export function extendLead(
  lead: ScoredSentence,
  candidates: readonly ScoredSentence[],
  options: Pick<ExtractOptions, 'maxSentences' | 'maxChars'> = {},
): ScoredSentence[] {
  const picked = [lead];
  const maxSentences = options.maxSentences ?? 2;
  const maxChars = options.maxChars ?? 600;
  let length = lead.text.length;
  for (const candidate of candidates) {
    if (picked.length >= maxSentences) break;
    if (candidate === lead || candidate.text === lead.text) continue;
    if (candidate.score < lead.score * 0.85 || length + candidate.text.length > maxChars) continue;
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
export function excerptOf(
  passage: RetrievedPassage,
  focus?: string,
  maxChars = 300,
  furniture?: ReadonlySet<string>,
): string {
  const blocks = textBlocks(withoutFurniture(passage.content, furniture));
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
