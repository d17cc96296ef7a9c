// The one translation of errors to HTTP meaning (validator, body parser, database, our AppErrors).
// Surfaces render it in their own format (http/surfaces/).
import type { NextFunction, Request, Response } from 'express';
import { error as validatorErrors } from 'express-openapi-validator';
import {
  BaseError,
  ConnectionAcquireTimeoutError,
  ConnectionError,
  DatabaseError,
  ForeignKeyConstraintError,
  UniqueConstraintError,
  ValidationError as SequelizeValidationError,
} from 'sequelize';
import { AppError, errorCatalog, errors, type ErrorCode, type FieldError } from '../shared/errors.ts';
import { NOT_BLANK_PATTERN } from '../shared/not-blank.ts';

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  errors?: Array<{ path: string; message: string }>;
  headers?: Record<string, string>;
  message?: string;
  /** body-parser's: the text it could not parse. */
  body?: unknown;
  /** zlib's, for a body its Content-Encoding could not decode (Z_DATA_ERROR, ERR__ERROR_FORMAT_PADDING_1). */
  code?: string;
  /** The contract validator's refusals: the request's method (src/http/openapi.ts). */
  method?: string;
}

/**
 * `/body/email` -> `email`, `/query/itemsPerPage` -> `itemsPerPage`, `.query.page` -> `page`; `/body` (the
 * whole of it) -> `body`.
 */
function fieldOf(path: string): string {
  const cleaned = path
    .replace(/^[./]?(body|query|params|path|headers)[./]?/, '')
    .replace(/^\//, '')
    .replace(/\//g, '.');
  return cleaned || path.replace(/^[./]/, '');
}

const QUERY_PATH = /^[./]?query[./]/;
const PAGING = new Set(['page', 'itemsPerPage']);

/** `createdAt.after` -> `createdAt[after]`, `status.0` -> `status`, `order.lastName` -> `order[lastName]`. */
function bracketed(field: string): string {
  const [name, ...rest] = field.split('.');
  return `${name}${rest
    .filter((part) => !/^\d+$/.test(part))
    .map((part) => `[${part}]`)
    .join('')}`;
}

// The contract's "not blank" pattern in words a client can show
const readable = (message: string) =>
  message === `must match pattern "${NOT_BLANK_PATTERN}"` ? 'must not be blank' : message;

const VALIDATOR_ERRORS: ReadonlyArray<abstract new (...args: never[]) => Error> = Object.values(validatorErrors);

/**
 * The contract validator's refusals, and the router's 400 for a path it cannot percent-decode (a
 * URIError it gives a status). Any other error with a `status` (an HTTP client's: Claude's 401, a
 * storage service's 404) is a failure of ours, a 500, not the client's fault it names.
 */
const isFrameworkRefusal = (error: unknown): error is HttpLikeError =>
  error instanceof URIError || VALIDATOR_ERRORS.some((type) => error instanceof type);

function fromValidator(error: HttpLikeError): AppError | undefined {
  const status = error.status ?? error.statusCode;
  switch (status) {
    case 400: {
      // Express could not percent-decode a path segment (`%E0%A4%A`): not UTF-8, so no id at all
      // (the contract's validator says it of the whole path: `api.members.%ZZ`, "malformed uri'")
      const raw = error.errors ?? [];
      if (error instanceof URIError || raw.some((e) => /^malformed uri/i.test(e.message)))
        return errors.validation([{ field: 'path', message: 'must be valid percent-encoded UTF-8' }]);
      const fieldErrors: FieldError[] = raw.map((e) => ({ field: fieldOf(e.path), message: readable(e.message) }));
      const unknownParameter = fieldErrors.find((e) => /Unknown query parameter/i.test(e.message));
      if (unknownParameter) {
        return new AppError('invalid_filter', `Unknown query parameter "${unknownParameter.field}"`, {
          errors: fieldErrors,
        });
      }
      // filters and sorts (everything in a read's query but paging) name the parameter as sent: createdAt[after]
      const read = error.method === undefined || error.method === 'GET' || error.method === 'HEAD';
      if (read && raw.length && raw.every((e) => QUERY_PATH.test(e.path) && !PAGING.has(fieldOf(e.path)))) {
        const filterErrors = raw.map((e) => ({
          field: bracketed(fieldOf(e.path)),
          message: /additional properties/.test(e.message)
            ? 'is not a supported operator or sortable field'
            : e.message,
        }));
        return new AppError(
          'invalid_filter',
          `Invalid filter or sort: ${filterErrors.map((e) => e.field).join(', ')}`,
          { errors: filterErrors },
        );
      }
      // mass assignment: fields the contract marks readOnly are refused, never applied
      // (the validator words it "is read-only", or "must pass readOnly keyword validation" for a null)
      if (fieldErrors.length && fieldErrors.every((e) => /is read-only|"readOnly"/.test(e.message))) {
        const readOnly = fieldErrors.map((e) => ({ field: e.field, message: 'is read-only' }));
        return new AppError(
          'read_only_field',
          `These fields are read-only: ${readOnly.map((e) => e.field).join(', ')}`,
          { errors: readOnly },
        );
      }
      return errors.validation(fieldErrors);
    }
    case 404:
      return new AppError('route_not_found', 'No operation exists at this path');
    case 405: {
      // the contract lists no HEAD, yet every GET answers it (headAsGet in openapi.ts)
      const allowed = error.headers?.Allow ? error.headers.Allow.split(/,\s*/) : [];
      if (allowed.includes('GET') && !allowed.includes('HEAD')) allowed.push('HEAD');
      return new AppError('method_not_allowed', error.message ?? 'Method not allowed', {
        headers: allowed.length ? { Allow: allowed.join(', ') } : {},
      });
    }
    case 406:
      return new AppError('not_acceptable', 'The Accept header names no media type this operation produces');
    case 413:
      return new AppError('payload_too_large', 'The request body is too large');
    case 415:
      // the validator's words for a body without a Content-Type: "unsupported media type undefined"
      return new AppError(
        'unsupported_media_type',
        /^(unsupported media type undefined|media type not specified)$/.test(error.message ?? '')
          ? 'The request has no Content-Type; send application/json'
          : (error.message ?? 'Unsupported media type'),
      );
    default:
      return undefined;
  }
}

/**
 * body-parser refuses a top-level `null`, `123`, `"str"` or `true` (strict mode) with the same error as
 * broken JSON: the text is valid JSON, only not an object. Only text that does not open with `{` or `[`
 * is parsed again, so a large broken body is not.
 */
const isJsonScalar = (body: unknown): boolean => {
  if (typeof body !== 'string' || !/^[ \t\n\r]*[^ \t\n\r{[]/.test(body)) return false;
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
};

/** body-parser's errors carry a `type`. */
function fromBodyParser(error: HttpLikeError): AppError | undefined {
  switch (error.type) {
    case 'entity.parse.failed':
      return new AppError(
        'malformed_body',
        isJsonScalar(error.body) ? 'The request body must be a JSON object' : 'The request body is not valid JSON',
      );
    case 'entity.too.large':
      return new AppError('payload_too_large', 'The request body exceeds the allowed size');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', 'Unsupported body encoding or charset');
    // the client stopped sending (or sent less than it announced): its fault, not a failure of ours
    // to log as an error; usually nobody is left to read the answer
    case 'request.aborted':
      return new AppError('malformed_body', 'The request was aborted before its body arrived');
    case 'request.size.invalid':
      return new AppError('malformed_body', 'The request body is not as long as its Content-Length says');
    default:
      // a gzip, deflate or br body that does not decode: body-parser passes zlib's error on as a 400
      return (error.status ?? error.statusCode) === 400 && /^(Z_|ERR__)/.test(error.code ?? '')
        ? new AppError('malformed_body', 'The request body is not encoded as its Content-Encoding says')
        : undefined;
  }
}

/** Seconds a client should wait before retrying while the database is unreachable. */
const DATABASE_RETRY_AFTER_SECONDS = 5;
// PostgreSQL shutting down or starting (57P01-57P03) and lost connections (class 08)
const UNAVAILABLE_CODES = /^(57P0[123]|08\d\d\d)$/;
const LOST_CONNECTION =
  /Connection terminated|ECONNREFUSED|ECONNRESET|EPIPE|the database system is (shutting down|starting up)/i;

/**
 * The database is unreachable (restarting, failed over, the pool cannot connect): a 503 the client may
 * retry, not a 500. The pool reconnects by itself once it answers again.
 */
function unavailable(error: unknown): AppError | undefined {
  // Sequelize wraps what its own queries meet; Sql's pooled queries meet pg's errors as they are
  const raw = (error instanceof DatabaseError ? error.parent : error) as { code?: unknown; message?: unknown } | null;
  const lost =
    error instanceof ConnectionError ||
    error instanceof ConnectionAcquireTimeoutError ||
    (typeof raw?.code === 'string' && UNAVAILABLE_CODES.test(raw.code)) ||
    (typeof raw?.message === 'string' && LOST_CONNECTION.test(raw.message));
  if (!lost) return undefined;
  return new AppError(
    'service_unavailable',
    'The database is not reachable at the moment; retry shortly',
    { headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) } },
    { cause: error },
  );
}

/** PostgreSQL error codes translated once, here. */
function fromDatabase(error: unknown): AppError | undefined {
  if (error instanceof UniqueConstraintError) {
    const fields = Object.keys(error.fields ?? {});
    return new AppError(
      'already_exists',
      fields.length
        ? `A record with the same ${fields.join(', ')} already exists`
        : 'A record with the same unique value already exists',
      {
        errors: fields.map((field) => ({ field, message: 'must be unique' })),
      },
    );
  }
  if (error instanceof ForeignKeyConstraintError)
    return new AppError('conflict', 'The change refers to, or is referred to by, another record');
  if (error instanceof SequelizeValidationError) {
    return new AppError('validation_failed', 'Fields failed validation', {
      errors: error.errors.map((e) => ({ field: e.path ?? 'unknown', message: e.message })),
    });
  }
  if (error instanceof DatabaseError) {
    const code = (error.parent as { code?: string } | undefined)?.code;
    if (code === '40001' || code === '40P01')
      return new AppError('retryable_conflict', 'The change collided with a concurrent one; retry it');
    if (code === '23505') return new AppError('already_exists', 'A record with the same unique value already exists');
    if (code === '23503') return new AppError('conflict', 'The change refers to, or is referred to by, another record');
  }
  return undefined;
}

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const http = error as HttpLikeError;
  return (
    fromBodyParser(http) ??
    unavailable(error) ??
    (error instanceof BaseError ? fromDatabase(error) : undefined) ??
    (isFrameworkRefusal(error) ? fromValidator(error) : undefined) ??
    new AppError('internal_error', 'An unexpected error occurred', {}, { cause: error })
  );
}

export function problemType(baseUrl: string, code: ErrorCode): string {
  return `${baseUrl}/errors/${code}`;
}

export function routeNotFound() {
  return (_req: Request, _res: Response, next: NextFunction) =>
    next(new AppError('route_not_found', 'No operation exists at this path'));
}

export const documentedCodes = Object.keys(errorCatalog) as ErrorCode[];
