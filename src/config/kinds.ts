// The kinds of value an environment variable holds, as zod schemas over its trimmed text (an empty
// variable counts as unset before any of these runs), and the registry of each variable's description.
// A kind's problem reads after the variable's name ("PORT must be an integer between 0 and 65535,
// got "x""); its format is what the generated docs say it accepts.
import * as z from 'zod';

/** What each kind accepts, in the words of the generated configuration table and .env.example. */
export const formats = z.registry<{ format: string }>();

/** Thrown by a kind's parser for a value it refuses; turned into that variable's zod issue. */
class Refused extends Error {}

function refuse(message: string): never {
  throw new Refused(message);
}

function kind<T>(format: string, parse: (raw: string) => T) {
  const schema = z.string().transform((raw, ctx): T => {
    try {
      return parse(raw);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      ctx.issues.push({ code: 'custom', message: error.message, input: raw });
      return z.NEVER;
    }
  });
  formats.add(schema, { format });
  return schema;
}

function documented<S extends z.ZodType>(schema: S, format: string): S {
  formats.add(schema, { format });
  return schema;
}

export function text(format = 'text') {
  return documented(z.string(), format);
}

/** A secret that must be long enough to be one (APP_SECRET). */
export function secret(minLength: number) {
  const schema = z.string().min(minLength, `must be at least ${minLength} characters`);
  return documented(schema, `≥ ${minLength} characters`);
}

export function pattern(regex: RegExp, format: string, message: string) {
  return documented(z.string().regex(regex, message), format);
}

export function choice<const T extends readonly [string, ...string[]]>(values: T) {
  const message = (input: unknown) => `must be one of ${values.join(', ')}, got "${String(input)}"`;
  return documented(z.enum(values, { error: (issue) => message(issue.input) }), values.join(', '));
}

export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  const format = max === Number.MAX_SAFE_INTEGER ? `integer ≥ ${min}` : `integer ${min}–${max}`;
  return kind(format, (raw) => {
    const value = Number(raw);
    if (Number.isInteger(value) && value >= min && value <= max) return value;
    return refuse(`must be an integer between ${min} and ${max}, got "${raw}"`);
  });
}

export function decimal(min: number, max: number) {
  return kind(`number ${min}–${max}`, (raw) => {
    const value = Number(raw);
    if (Number.isFinite(value) && value >= min && value <= max) return value;
    return refuse(`must be a number between ${min} and ${max}, got "${raw}"`);
  });
}

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off'];

export function flag() {
  return kind('true or false', (raw) => {
    const word = raw.toLowerCase();
    if (TRUE.includes(word)) return true;
    if (FALSE.includes(word)) return false;
    return refuse(`must be true or false, got "${raw}"`);
  });
}

/** The form every configured URL is kept in: parsed, serialized, without a trailing slash. */
export function canonicalUrl(raw: string): string {
  return new URL(raw).toString().replace(/\/$/, '');
}

export function absoluteUrl() {
  return kind('absolute URL', (raw) => {
    try {
      return canonicalUrl(raw);
    } catch {
      return refuse(`must be an absolute URL, got "${raw}"`);
    }
  });
}

function list(raw: string): string[] {
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** Web origins as a browser sends them in `Origin`: scheme, host, port, no path. */
export function origins() {
  return kind('comma-separated origins (scheme://host[:port])', (raw) => {
    const entries = list(raw);
    for (const entry of entries) {
      let origin: string | undefined;
      try {
        origin = new URL(entry).origin;
      } catch {
        origin = undefined;
      }
      if (origin !== entry) {
        refuse(`must list origins such as https://portal.example.org (scheme, host, port; no path), got "${entry}"`);
      }
    }
    return entries;
  });
}

const WEEK_SECONDS = 7 * 86400;

/** Delays in seconds between attempts, e.g. "5,300,1800". */
export function delays() {
  return kind(`up to 30 comma-separated whole seconds, 1–${WEEK_SECONDS}`, (raw) => {
    const values = raw.split(',').map((part) => Number(part.trim()));
    if (values.length <= 30 && values.every((v) => Number.isInteger(v) && v >= 1 && v <= WEEK_SECONDS)) return values;
    return refuse(`must be up to 30 comma-separated whole seconds between 1 and ${WEEK_SECONDS}, got "${raw}"`);
  });
}

const PROXY_ENTRY = /^(loopback|linklocal|uniquelocal|[0-9a-f:.]+(\/\d{1,3})?)$/i;

/** Express's `trust proxy`: true/false, a hop count, or addresses, CIDRs and Express's names for ranges. */
export function trustProxy() {
  const format = 'true, false, a hop count, or comma-separated addresses, CIDRs, loopback, linklocal, uniquelocal';
  return kind(format, (raw): boolean | number | string[] => {
    if (/^(true|false)$/i.test(raw)) return raw.toLowerCase() === 'true';
    if (/^\d+$/.test(raw)) return Number(raw);
    const entries = list(raw);
    const wrong = entries.find((entry) => !PROXY_ENTRY.test(entry));
    if (wrong === undefined) return entries;
    return refuse(`must be true, false, a hop count or addresses/CIDRs/loopback/linklocal/uniquelocal, got "${wrong}"`);
  });
}

/** What the generated docs say about one variable; its accepted format and fixed default come from its schema. */
export interface VariableDoc {
  description: string;
  /** A default that depends on other settings, in words (a fixed default is the schema's prefault). */
  computedDefault?: string;
  /** What .env.example shows for a variable without a default. */
  example?: string;
}

export const docs = z.registry<VariableDoc>();

export function described<S extends z.ZodType>(
  schema: S,
  description: string,
  more: Omit<VariableDoc, 'description'> = {},
): S {
  docs.add(schema, { description, ...more });
  return schema;
}
