// The one sentence splitter of the code base (passages, the chat's extractive answers, document
// digests, speech): Unicode's sentence boundaries (UAX #29, ICU through Intl.Segmenter), which keep
// decimals ("2.5"), lower-case continuations ("e.g. the board") and closing quotes together, plus the
// abbreviations ICU's default rules still break after ("Dr. Smith", "No. 4").
const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** A segment ending with one of these runs on into the next: it is a title or a short form, not an end. */
const ABBREVIATION = /(?:^|[\s("'“‘])(?:Dr|Mr|Mrs|Ms|Prof|St|vs|approx|e\.g|i\.e)\.$/iu;
/** "No." runs on only into a number ("No. 4 Bridge Street"); "Said no." ends a sentence. */
const NUMBER_SIGN = /(?:^|[\s(])No\.$/u;

/** The sentences of a text, trimmed, without empty ones. A line break ends a sentence too. */
export function splitSentences(text: string): string[] {
  const segments = [...segmenter.segment(text)].map(({ segment }) => segment);
  const out: string[] = [];
  let carry = '';
  segments.forEach((segment, i) => {
    const sentence = carry ? `${carry} ${segment.trim()}` : segment.trim();
    carry = '';
    if (!sentence) return;
    const next = segments[i + 1]?.trimStart() ?? '';
    const runsOn =
      !!next &&
      !/\n\s*$/u.test(segment) &&
      (ABBREVIATION.test(sentence) || (NUMBER_SIGN.test(sentence) && /^\d/u.test(next)));
    if (runsOn) carry = sentence;
    else out.push(sentence);
  });
  return out;
}
