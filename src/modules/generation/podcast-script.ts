// The podcast's script: two hosts talking about one document. Without Claude it is composed from the
// document's digest: an introduction naming the sections, an exchange per section built from its key
// sentences (one host asks about the heading, the other answers, the first picks up a second point),
// the figures that stand out, the steps when the document lists some, and a wrap-up of the takeaways.
// Lines are deterministic for a given document (phrasings rotate by position, not at random).
import type { DocumentDigest, Section } from './document-digest.ts';

export type HostId = 'A' | 'B';

export interface ScriptLine {
  speaker: HostId;
  text: string;
}

export interface Host {
  id: HostId;
  name: string;
  voice: string;
}

/** Host A speaks with Flite's slt (higher), host B with rms (lower): two voices nobody confuses. */
export const HOSTS: Readonly<Record<HostId, Host>> = {
  A: { id: 'A', name: 'Claire', voice: 'slt' },
  B: { id: 'B', name: 'Ryan', voice: 'rms' },
};

/**
 * About three minutes of audio: Flite speaks ~2 words a second with the pauses. The section exchanges
 * stop at MAX_WORDS; figures, steps and the wrap-up add ~100 words (the 60 s budget for ten pages).
 */
const MAX_SECTIONS = 5;
const MAX_WORDS = 300;

const ASK = [
  (h: string) => `Let's start with ${h}. What does the document say?`,
  (h: string) => `Next up is ${h}. What stood out to you there?`,
  (h: string) => `Then there's a part on ${h}. Walk me through it.`,
  (h: string) => `What about ${h}?`,
  (h: string) => `And ${h}, what's the main point?`,
  (h: string) => `Let's turn to ${h}.`,
];
const FOLLOW = [
  'Right. And it adds that',
  'Interesting. It also notes that',
  'That matters, because',
  'And on top of that,',
];
const REACT = ['That is a useful point.', 'Good to know.', 'That makes sense.', 'Worth remembering.'];

const lowerFirst = (s: string) => (/^[A-Z][a-z]/.test(s) ? s[0]!.toLowerCase() + s.slice(1) : s);
const listOf = (items: string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
const wordCount = (lines: ScriptLine[]) => lines.reduce((sum, l) => sum + l.text.split(/\s+/).length, 0);
const headingPhrase = (section: Section) =>
  /^Page \d+$/.test(section.heading) ? `page ${section.heading.slice(5)}` : `"${section.heading}"`;

export function composeScript(digest: DocumentDigest): ScriptLine[] {
  const { A, B } = HOSTS;
  const sections = digest.sections.slice(0, MAX_SECTIONS);
  const named = sections.filter((s) => !/^Page \d+$/.test(s.heading)).map((s) => s.heading);
  const lines: ScriptLine[] = [
    {
      speaker: 'A',
      text: `Welcome to the Library Briefing. I'm ${A.name}, and with me is ${B.name}. Today we're looking at "${digest.title}".`,
    },
    {
      speaker: 'B',
      text:
        `Thanks, ${A.name}. It's a ${digest.pages === 1 ? 'one-page' : `${digest.pages}-page`} document` +
        (named.length ? `, and it covers ${listOf(named.slice(0, 4))}.` : ', and there is a lot in it.'),
    },
  ];
  const used = new Set<string>();
  sections.forEach((section, index) => {
    if (wordCount(lines) > MAX_WORDS) return;
    const [first, second] = section.keySentences;
    if (!first) return;
    used.add(first);
    lines.push({ speaker: 'A', text: ASK[index % ASK.length]!(headingPhrase(section)) });
    lines.push({ speaker: 'B', text: first });
    if (second) {
      used.add(second);
      lines.push({ speaker: 'A', text: `${FOLLOW[index % FOLLOW.length]} ${lowerFirst(second)}` });
      lines.push({ speaker: 'B', text: REACT[index % REACT.length]! });
    }
  });
  const figures = digest.figures.filter((f) => !used.has(f.sentence)).slice(0, 3);
  if (figures.length && wordCount(lines) <= MAX_WORDS) {
    lines.push({ speaker: 'A', text: 'Were there any numbers that stood out?' });
    figures.forEach((figure, i) => {
      lines.push({
        speaker: i % 2 ? 'A' : 'B',
        text: i === 0 ? `Yes. ${figure.sentence}` : `Also, ${lowerFirst(figure.sentence)}`,
      });
    });
    const headline = figures[0]!;
    lines.push({
      speaker: figures.length % 2 ? 'A' : 'B',
      text: `${headline.value} ${headline.label ? `for ${headline.label}` : ''} is the one I'd remember.`.replace(
        /\s+/g,
        ' ',
      ),
    });
  }
  if (digest.steps.length && wordCount(lines) <= MAX_WORDS) {
    const steps = digest.steps.slice(0, 6);
    lines.push({ speaker: 'A', text: `The document also sets out ${steps.length} steps. Can you run through them?` });
    const ordinals = ['First', 'Second', 'Third', 'Fourth', 'Fifth', 'Sixth'];
    lines.push({ speaker: 'B', text: steps.map((step, i) => `${ordinals[i]}, ${lowerFirst(step)}.`).join(' ') });
  }
  const takeaways = digest.takeaways.slice(0, 2);
  lines.push({
    speaker: 'A',
    text: takeaways.length
      ? `So, to sum up: ${lowerFirst(takeaways[0]!)}${takeaways[1] ? ` And ${lowerFirst(takeaways[1])}` : ''}`
      : `So that's "${digest.title}" in brief.`,
  });
  lines.push({
    speaker: 'B',
    text: `The full document is in the library if you want the detail. Thanks for listening.`,
  });
  return lines.map((line) => ({ ...line, text: line.text.replace(/\s+/g, ' ').trim() }));
}
