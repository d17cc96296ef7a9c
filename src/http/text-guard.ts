// Text PostgreSQL cannot store as sent is refused where input enters, with a 400 naming the field:
// - U+0000: text and jsonb cannot hold it. As a bound parameter it failed in the database (500);
//   escaped by Sequelize into a literal it was stored as the two characters "\0".
// - A lone UTF-16 surrogate (`"\ud800"` in JSON): a text column silently stored U+FFFD instead, and
//   a jsonb column (the audit entry of an update) refused it, so the update failed as a 500.
// Create and update agree: both refuse. Surrogate pairs (emoji) and other control characters are
// stored as sent. Multipart fields and file names are decoded as UTF-8 and cannot hold a lone
// surrogate; the URL's percent-decoding cannot produce one either.
import type { Request, RequestHandler, Response } from 'express';
import { errors, type AppError } from '../shared/errors.ts';

const NUL = '\u0000';
const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';
const SURROGATE_MESSAGE = 'must be well-formed Unicode: a lone UTF-16 surrogate (U+D800 to U+DFFF) cannot be stored';

const problemOf = (text: string): string | undefined =>
  text.includes(NUL) ? NUL_MESSAGE : text.isWellFormed() ? undefined : SURROGATE_MESSAGE;

/** Where (`a.b[2]`) the first string or key that cannot be stored sits, and why, if anywhere. */
export function unstorableTextAt(value: unknown, path = ''): { field: string; message: string } | undefined {
  if (typeof value === 'string') {
    const message = problemOf(value);
    return message ? { field: path || 'value', message } : undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableTextAt(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const field = path ? `${path}.${key}` : key;
      const message = problemOf(key);
      if (message) return { field, message };
      const found = unstorableTextAt(item, field);
      if (found) return found;
    }
  }
  return undefined;
}

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

const suspect = new WeakSet<Request>();
// JSON can only carry a NUL or a lone surrogate as a \u escape (raw bytes decode to U+FFFD)
const SUSPECT_ESCAPE = /\\u(0000|d[89a-f])/i;

/** express.json's `verify`: notes a body whose text has a `\u0000` or `\uD8xx`-`\uDFxx` escape, so only those are walked. */
export const noteSuspectEscape = (req: Request, _res: Response, body: Buffer): void => {
  if (body.includes('\\u') && SUSPECT_ESCAPE.test(body.toString('latin1'))) suspect.add(req);
};

/** After express.json (with `verify: noteSuspectEscape`): a parsed body holding unstorable text is refused. */
export const rejectUnstorableJson: RequestHandler = (req, _res, next) =>
  next(suspect.has(req) ? unstorableTextRefusal(req.body) : undefined);
