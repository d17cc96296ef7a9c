// PostgreSQL's text and jsonb cannot hold U+0000. A NUL that reached the database failed there as a
// 500 when it was a bound parameter, or, escaped by Sequelize into a literal, was stored as the two
// characters "\0" instead of what was sent. So every surface refuses it where input enters (the URL,
// JSON bodies, multipart fields, verified webhook payloads) with a 400 naming the field. Other
// control characters are stored as sent.
import type { Request, RequestHandler, Response } from 'express';
import { errors, type AppError } from '../shared/errors.ts';

const NUL = '\u0000';
const MESSAGE = 'must not contain the NUL character (U+0000)';

/** Where (`a.b[2]`) the first string or key holding a NUL sits, if anywhere. */
export function nulAt(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? path || 'value' : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulAt(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const field = path ? `${path}.${key}` : key;
      if (key.includes(NUL)) return field;
      const found = nulAt(item, field);
      if (found) return found;
    }
  }
  return undefined;
}

/** The 400 for a value holding a NUL, or undefined when it holds none. */
export function nulRefusal(value: unknown): AppError | undefined {
  const field = nulAt(value);
  return field === undefined ? undefined : errors.validation([{ field, message: MESSAGE }]);
}

/** `%00` anywhere in the URL (a raw NUL never gets past Node's HTTP parser): the query field, or the path. */
export const rejectNulInUrl: RequestHandler = (req, _res, next) => {
  if (!req.url.includes('%00')) return next();
  next(errors.validation([{ field: nulAt(req.query) ?? 'path', message: MESSAGE }]));
};

const escaped = new WeakSet<Request>();

/** express.json's `verify`: notes a body whose text has a `\u0000` escape, so only those are walked. */
export const noteNulEscape = (req: Request, _res: Response, body: Buffer): void => {
  if (body.includes('\\u0000')) escaped.add(req);
};

/** After express.json (with `verify: noteNulEscape`): a parsed body holding a NUL is refused. */
export const rejectNulInJson: RequestHandler = (req, _res, next) => next(escaped.has(req) ? nulRefusal(req.body) : undefined);
