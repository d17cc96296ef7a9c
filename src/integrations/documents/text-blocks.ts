// Extracted text keeps its line breaks (a PDF page's lines, a slide's lines). When it is cut into
// sentences, a line that stands alone, such as a heading or a list item, must not run into the
// sentence after it: "Membership dues\nAnnual dues are 180 dollars." is a heading and a sentence, not
// one sentence beginning "Membership dues Annual dues are…". Wrapped lines of running text join with a
// space, as before.

/** A line ends a sentence or a clause. */
const CLOSES = /[.!?:;,]["'”’)\]]?$/u;
/** A line begins something new: a capital, a figure, a quote, a bullet. */
const OPENS = /^[\p{Lu}\p{N}"'“‘(•▪◦*–—-]/u;
/** Longer lines are running text however they end. */
const MAX_STANDALONE_WORDS = 8;
/** A line of its own is at most this share of the next line's length. */
const SHORTER_THAN_NEXT = 0.6;

const wordCount = (line: string) => line.split(' ').length;

/** Short, no closing punctuation, starting with a capital or figure: a heading (or a list item). */
export const readsLikeHeading = (line: string): boolean =>
  wordCount(line) <= MAX_STANDALONE_WORDS && !CLOSES.test(line) && /^[\p{Lu}\p{N}]/u.test(line);

export interface TextBlock {
  text: string;
  /** A line of its own (heading, list item, caption), not part of the running text around it. */
  standalone: boolean;
}

/**
 * The text as blocks: a line that starts afresh (first, or after a line that closed a sentence or
 * stood alone), reads like a heading and is followed by a clearly longer line that begins something
 * new (or by nothing) stands alone; every other line joins the running text it belongs to. Lists of
 * short items therefore stay running text, as they were.
 */
export function textBlocks(text: string): TextBlock[] {
  const lines = text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  const blocks: TextBlock[] = [];
  let running: string[] = [];
  const flush = () => {
    if (running.length) blocks.push({ text: running.join(' '), standalone: false });
    running = [];
  };
  let previous: { line: string; standalone: boolean } | undefined;
  lines.forEach((line, i) => {
    const startsAfresh = !previous || previous.standalone || CLOSES.test(previous.line);
    const next = lines[i + 1];
    // a heading is much shorter than the text under it; the first line of a narrow column that wraps
    // before a capital ("…goes to the\nBoard of…") is about as long as the line after it
    const standalone =
      startsAfresh &&
      readsLikeHeading(line) &&
      (next === undefined || (OPENS.test(next) && line.length <= next.length * SHORTER_THAN_NEXT));
    if (standalone) {
      flush();
      blocks.push({ text: line, standalone });
    } else {
      running.push(line);
    }
    previous = { line, standalone };
  });
  flush();
  return blocks;
}
