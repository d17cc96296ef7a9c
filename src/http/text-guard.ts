// Text PostgreSQL cannot store as sent is refused where input enters, with a 400 naming the field:
// - U+0000: text and jsonb cannot hold it. As a bound parameter it failed in the database (500);
//   escaped by Sequelize into a literal it was stored as the two characters "\0".
// - A lone UTF-16 surrogate (`"\ud800"` in JSON): a text column silently stored U+FFFD instead, and
//   a jsonb column (the audit entry of an update) refused it, so the update failed as a 500.
// Create and update agree: both refuse. Surrogate pairs (emoji) and other control characters are
// stored as sent. Multipart fields and file names are decoded as UTF-8 and cannot hold a lone
// surrogate; the URL's percent-decoding cannot produce one either.
// JSON bodies are refused too where what JSON.parse made of them is not what was sent, or cannot be
// handled further: bytes that are not UTF-8 (decoded to U+FFFD), numbers beyond a double (1e400 became
// Infinity, stored as null) or integers beyond 2^53 written in digits (rounded), and nesting deeper
// than MAX_JSON_DEPTH (at 5,000 levels Sequelize's JSON.stringify of a jsonb ran out of stack: a 500).
import { isUtf8 } from 'node:buffer';
import type { Request, RequestHandler, Response } from 'express';
import { AppError, errors, type FieldError } from '../shared/errors.ts';

const NUL = '\u0000';
export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';
const SURROGATE_MESSAGE = 'must be well-formed Unicode: a lone UTF-16 surrogate (U+D800 to U+DFFF) cannot be stored';

const problemOf = (text: string): string | undefined =>
  text.includes(NUL) ? NUL_MESSAGE : text.isWellFormed() ? undefined : SURROGATE_MESSAGE;

/** No operation's contract nests a tenth as deep; customFields and SCIM extensions stay well within. */
export const MAX_JSON_DEPTH = 32;
const DEPTH_MESSAGE = `nests deeper than ${MAX_JSON_DEPTH} levels`;
const INFINITE_MESSAGE = 'is beyond the range of a number (about 1.8e308); send it as a string';
const UNSAFE_INTEGER_MESSAGE = `is too large to be stored exactly (beyond ±${Number.MAX_SAFE_INTEGER}); send it as a string`;

interface WalkOptions {
  /** Look for unstorable text in strings and keys (off when the raw JSON had no suspect escape). */
  text: boolean;
  /** Containers at most this deep (the value itself is level 1). */
  maxDepth: number;
  /** Whether the sent text wrote this unsafe integer in digits (rounded by JSON.parse); undefined: numbers are not checked. */
  writtenInDigits?: (value: number) => boolean;
}

// A node of the walk; its path (`a.b[2]`) is spelled out only for the one refused
interface Node {
  value: unknown;
  parent?: Node;
  name?: string | number;
  depth: number;
}

function pathOf(node: Node): string {
  const names: Array<string | number> = [];
  for (let at: Node | undefined = node; at?.name !== undefined; at = at.parent) names.push(at.name);
  return names.reduceRight<string>(
    (path, name) => (typeof name === 'number' ? `${path}[${name}]` : path ? `${path}.${name}` : name),
    '',
  );
}

function problemOfNumber(value: number, options: WalkOptions): string | undefined {
  if (!options.writtenInDigits) return undefined;
  if (!Number.isFinite(value)) return INFINITE_MESSAGE; // JSON has no NaN: only 1e400 and the like
  if (Number.isSafeInteger(value) || !Number.isInteger(value)) return undefined;
  return options.writtenInDigits(value) ? UNSAFE_INTEGER_MESSAGE : undefined;
}

/**
 * Where the first string, key, number or nesting that cannot be stored sits, and why, if anywhere.
 * Iterative, in document order: a body nested thousands deep cannot overflow the stack here.
 */
function firstRefused(value: unknown, options: WalkOptions): FieldError | undefined {
  const stack: Node[] = [{ value, depth: 0 }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const item = node.value;
    let message: string | undefined;
    if (typeof item === 'string') message = options.text ? problemOf(item) : undefined;
    else if (typeof item === 'number') message = problemOfNumber(item, options);
    else if (item && typeof item === 'object') {
      const depth = node.depth + 1;
      if (depth > options.maxDepth) message = DEPTH_MESSAGE;
      else if (Array.isArray(item)) {
        for (let i = item.length - 1; i >= 0; i--) stack.push({ value: item[i], parent: node, name: i, depth });
      } else {
        const entries = Object.entries(item);
        for (let i = entries.length - 1; i >= 0; i--) {
          const [name, child] = entries[i]!;
          stack.push({ value: child, parent: node, name, depth });
          // the key is checked before its value, under the same name
          if (options.text) stack.push({ value: name, parent: node, name, depth });
        }
      }
    }
    if (message) return { field: pathOf(node) || 'value', message };
  }
  return undefined;
}

/** Where (`a.b[2]`) the first string or key that cannot be stored sits, and why, if anywhere. */
export const unstorableTextAt = (value: unknown): FieldError | undefined =>
  firstRefused(value, { text: true, maxDepth: Number.POSITIVE_INFINITY });

/** The 400 for a value holding text that cannot be stored, or undefined when it holds none. */
export function unstorableTextRefusal(value: unknown): AppError | undefined {
  const found = unstorableTextAt(value);
  return found === undefined ? undefined : errors.validation([found]);
}

/** `%00` anywhere in the URL (a raw NUL never gets past Node's HTTP parser): the query field, or the path. */
export const rejectNulInUrl: RequestHandler = (req, _res, next) => {
  if (!req.url.includes('%00')) return next();
  next(errors.validation([{ field: unstorableTextAt(req.query)?.field ?? 'path', message: NUL_MESSAGE }]));
};

// the raw bytes, until the parsed body is checked: scanned for a suspect escape, and read again only for
// an integer beyond 2^53
const rawBodies = new WeakMap<Request, Buffer>();
// JSON can only carry a NUL or a lone surrogate as a \u escape (raw bytes decode to U+FFFD)
const SUSPECT_ESCAPE = /\\u(0000|d[89a-f])/i;
// an integer in digits, no fraction or exponent: 16 digits or more may be beyond 2^53
const LONG_INTEGER = /(?<![\w.+-])-?\d{16,}(?![\d.eE])/g;

/**
 * express.json's `verify`: refuses bytes that are not UTF-8 (decoding would make them U+FFFD), and keeps
 * the raw bytes for rejectUnstorableJson.
 */
export const noteSuspectEscape = (req: Request, _res: Response, body: Buffer, encoding: string): void => {
  if (/^utf-?8$/i.test(encoding) && !isUtf8(body))
    throw new AppError('malformed_body', 'The request body is not valid UTF-8');
  rawBodies.set(req, body);
};

/** Whether the text has a `\u0000` or `\uD8xx`-`\uDFxx` escape: only such bodies are walked for text. */
const hasSuspectEscape = (raw: Buffer): boolean => raw.includes('\\u') && SUSPECT_ESCAPE.test(raw.toString('latin1'));

/** Whether `raw` writes `value` (an integer beyond 2^53) in digits, which JSON.parse rounded (the text is read once). */
function writtenInDigits(raw: Buffer): (value: number) => boolean {
  let inDigits: Set<number> | undefined;
  return (value) => {
    inDigits ??= new Set(raw.toString('latin1').match(LONG_INTEGER)?.map(Number));
    return inDigits.has(value);
  };
}

/**
 * The refusal of a JSON body a surface parsed itself from `raw` (the inbound webhooks keep the bytes for
 * their signature), if any: what express.json and rejectUnstorableJson refuse on the others.
 */
export function jsonBodyRefusal(body: unknown, raw: Buffer): AppError | undefined {
  if (!isUtf8(raw)) return new AppError('malformed_body', 'The request body is not valid UTF-8');
  return parsedBodyRefusal(body, raw);
}

/** A parsed body that is no object, holds unstorable text or numbers, or nests too deep. */
function parsedBodyRefusal(body: unknown, raw: Buffer): AppError | undefined {
  // every body of the contract is an object: an array is refused as a scalar is (problem.ts)
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return new AppError('malformed_body', 'The request body must be a JSON object');
  const found = firstRefused(body, {
    text: hasSuspectEscape(raw),
    maxDepth: MAX_JSON_DEPTH,
    writtenInDigits: writtenInDigits(raw),
  });
  return found === undefined ? undefined : errors.validation([found]);
}

/**
 * After express.json (with `verify: noteSuspectEscape`): an array, a parsed body holding unstorable text, a
 * number JSON.parse could not hold as sent, or nesting deeper than MAX_JSON_DEPTH is refused.
 */
export const rejectUnstorableJson: RequestHandler = (req, _res, next) => {
  const raw = rawBodies.get(req);
  if (raw === undefined) return next(); // no JSON body was parsed
  rawBodies.delete(req);
  next(parsedBodyRefusal(req.body, raw));
};
