// Text prepared for a speech engine: figures, currency, percentages and symbols become words (Flite
// reads "$1.2m" letter by letter), and text is cut into short sentences (Flite aborts on long input).
import { splitSentences as sentencesOf } from '../../shared/sentences.ts';

const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SCALES: Array<[number, string]> = [
  [1e12, 'trillion'],
  [1e9, 'billion'],
  [1e6, 'million'],
  [1e3, 'thousand'],
];

function underThousand(n: number): string {
  const parts: string[] = [];
  if (n >= 100) {
    parts.push(`${ONES[Math.floor(n / 100)]} hundred`);
    n %= 100;
  }
  if (n >= 20) parts.push(TENS[Math.floor(n / 10)]! + (n % 10 ? `-${ONES[n % 10]}` : ''));
  else if (n > 0 || parts.length === 0) parts.push(ONES[n]!);
  return parts.join(' ');
}

/** A whole number in words (`1250` -> `one thousand two hundred fifty`). */
export function integerToWords(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (n < 0) return `minus ${integerToWords(-n)}`;
  n = Math.floor(n);
  if (n < 1000) return underThousand(n);
  const parts: string[] = [];
  for (const [value, name] of SCALES) {
    if (n >= value) {
      parts.push(`${integerToWords(Math.floor(n / value))} ${name}`);
      n %= value;
    }
  }
  if (n > 0) parts.push(underThousand(n));
  return parts.join(' ');
}

/** `1,250.75` -> `one thousand two hundred fifty point seven five`. */
export function numberToWords(text: string): string {
  const [whole, fraction] = text.replace(/,/g, '').split('.');
  const head = integerToWords(Number(whole || '0'));
  return fraction ? `${head} point ${[...fraction].map((d) => ONES[Number(d)]).join(' ')}` : head;
}

function yearToWords(year: number): string {
  if (year >= 2000 && year < 2010) return integerToWords(year);
  const high = Math.floor(year / 100);
  const low = year % 100;
  return `${integerToWords(high)} ${low === 0 ? 'hundred' : low < 10 ? `oh ${ONES[low]}` : integerToWords(low)}`;
}

const ORDINAL_ENDINGS: Record<string, string> = {
  one: 'first',
  two: 'second',
  three: 'third',
  five: 'fifth',
  eight: 'eighth',
  nine: 'ninth',
  twelve: 'twelfth',
};
function ordinalToWords(n: number): string {
  const words = integerToWords(n);
  const match = /([a-z]+)$/.exec(words)!;
  const last = match[1]!;
  const ordinal = ORDINAL_ENDINGS[last] ?? (last.endsWith('y') ? `${last.slice(0, -1)}ieth` : `${last}th`);
  return words.slice(0, match.index) + ordinal;
}

const CURRENCIES: Record<string, [string, string]> = {
  $: ['dollars', 'cents'],
  '€': ['euros', 'cents'],
  '£': ['pounds', 'pence'],
  '¥': ['yen', ''],
};
const SCALE_WORDS: Record<string, string> = {
  k: 'thousand',
  thousand: 'thousand',
  m: 'million',
  mn: 'million',
  million: 'million',
  b: 'billion',
  bn: 'billion',
  billion: 'billion',
  trillion: 'trillion',
  tn: 'trillion',
};
const ABBREVIATIONS: Array<[RegExp, string]> = [
  [/\be\.g\.,?/gi, 'for example,'],
  [/\bi\.e\.,?/gi, 'that is,'],
  [/\betc\./gi, 'et cetera'],
  [/\bvs\.?(?=\s)/gi, 'versus'],
  [/\bapprox\./gi, 'approximately'],
  [/\bno\.\s?(?=\d)/gi, 'number '],
  [/\bQ([1-4])\b/g, 'quarter $1'],
  [/\bFY\s?(?=\d)/g, 'fiscal year '],
];

/** Turns figures, currency, percentages, symbols and typographic quotes into words a voice reads well. */
export function normalizeForSpeech(input: string): string {
  let text = input
    .normalize('NFKC')
    .replace(/[\u2018\u2019\u201B\u2032]/g, "'")
    .replace(/[\u201C\u201D\u201E\u2033"«»]/g, '')
    .replace(/\u2026/g, '...')
    .replace(/(\d)\s*[\u2013\u2014-]\s*(\d)/g, '$1 to $2')
    .replace(/\s*[\u2013\u2014]\s*/g, ', ')
    .replace(/[•·▪●◦]/g, ', ');
  for (const [pattern, words] of ABBREVIATIONS) text = text.replace(pattern, words);
  text = text
    // currency, with an optional scale: $1.2 million, €3.4bn, £450, $12.50
    .replace(
      /([$€£¥])\s?(\d[\d,]*(?:\.\d+)?)(?:\s?(thousand|million|billion|trillion|bn|mn|tn|[kmb])\b)?/gi,
      (_, symbol: string, amount: string, scale?: string) => {
        const [unit, minor] = CURRENCIES[symbol]!;
        const scaleWord = scale ? SCALE_WORDS[scale.toLowerCase()] : undefined;
        if (scaleWord) return `${numberToWords(amount)} ${scaleWord} ${unit}`;
        const [whole, cents] = amount.replace(/,/g, '').split('.');
        if (cents && cents.length === 2 && minor && Number(cents) > 0)
          return `${integerToWords(Number(whole))} ${unit} and ${integerToWords(Number(cents))} ${minor}`;
        return `${numberToWords(amount)} ${unit}`;
      },
    )
    .replace(/(\d[\d,]*(?:\.\d+)?)\s?%/g, (_, n: string) => `${numberToWords(n)} percent`)
    .replace(/\b(\d+)(st|nd|rd|th)\b/gi, (_, n: string) => ordinalToWords(Number(n)))
    .replace(/\b(1[1-9]\d\d|20\d\d)s\b/g, (_, y: string) => `${yearToWords(Number(y))}s`.replace(/ys$/, 'ies'))
    .replace(/(?<![\d,.])\b(1[1-9]\d\d|20\d\d)\b(?![\d,]|\.\d)/g, (_, y: string) => yearToWords(Number(y)))
    .replace(/\d[\d,]*(?:\.\d+)?/g, (n) => numberToWords(n.replace(/[,.]$/, '')))
    .replace(/\band\/or\b/gi, 'and or')
    .replace(/&/g, ' and ')
    .replace(/\+/g, ' plus ')
    .replace(/@/g, ' at ')
    .replace(/=/g, ' equals ')
    .replace(/#/g, ' number ')
    .replace(/~/g, ' about ')
    .replace(/</g, ' less than ')
    .replace(/>/g, ' more than ')
    .replace(/°/g, ' degrees ')
    .replace(/\//g, ' or ')
    .replace(/[()[\]{}]/g, ', ')
    .replace(/[^A-Za-z0-9 ,.;:'?!-]/g, ' ')
    .replace(/\s+([,.;:?!])/g, '$1')
    .replace(/([,;:])[,;:\s]*(?=[,;:])/g, '')
    .replace(/^[\s,;:]+/, '')
    .replace(/\s+/g, ' ')
    .trim();
  return text;
}

const MAX_WORDS = 30;

/** Sentences of at most ~30 words (long ones are cut at commas, then every 30 words). */
export function splitSentences(text: string): string[] {
  const sentences = sentencesOf(text.replace(/\s+/g, ' ')).filter((s) => /[A-Za-z0-9]/.test(s));
  return sentences.flatMap((sentence) => {
    if (sentence.split(' ').length <= MAX_WORDS) return [sentence];
    const pieces: string[] = [];
    let current: string[] = [];
    for (const clause of sentence.split(/(?<=[,;:])\s+/)) {
      const words = clause.split(' ');
      if (current.length + words.length > MAX_WORDS && current.length) {
        pieces.push(current.join(' '));
        current = [];
      }
      for (let i = 0; i < words.length; i += MAX_WORDS) {
        const slice = words.slice(i, i + MAX_WORDS);
        if (slice.length === MAX_WORDS) pieces.push(slice.join(' '));
        else current.push(...slice);
      }
    }
    if (current.length) pieces.push(current.join(' '));
    return pieces;
  });
}
