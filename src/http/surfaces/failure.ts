// The one translation every surface shares: any error -> its HTTP meaning. Each surface renders
// the same meaning in its own format (problem+json, SCIM error, HTML page).
import type { NextFunction, Request, Response } from 'express';
import { AppError, type ErrorCode, type FieldError } from '../../shared/errors.ts';
import type { Logger } from '../../shared/logger.ts';
import { closeAfterResponse } from '../body-guards.ts';
import { toAppError } from '../problem.ts';

export interface HttpFailure {
  status: number;
  code: ErrorCode;
  title: string;
  detail: string;
  /** The fields at fault, named as the client sent them. */
  fields: FieldError[];
  /** Headers the answer must carry (Allow, Retry-After, WWW-Authenticate). */
  headers: Record<string, string>;
  /** Further members a format may show (problem+json does). */
  extras: Record<string, unknown>;
  /** The original error, for the log. */
  cause: unknown;
}

export function translate(error: unknown): HttpFailure {
  const appError = toAppError(error);
  const { errors, headers, ...extras } = appError.extras;
  return {
    status: appError.status,
    code: appError.code,
    title: appError.title,
    detail: appError.message,
    fields: errors ?? [],
    headers: headers ?? {},
    extras,
    cause: error,
  };
}

export interface RenderOptions {
  /**
   * Transport-level refusals (408, 413 on the declared length) are answered before the operation
   * is looked at, as Node's own 431 is; they bypass the response validator (see the contract's
   * introduction, which documents them for every operation).
   */
  transport?: boolean;
}

export type ErrorRenderer = (failure: HttpFailure, req: Request, res: Response, options?: RenderOptions) => void;

/** Bodies larger than this that the answer leaves unread close the connection instead of being drained. */
const DRAIN_LIMIT = 64 * 1024;

function leavesLargeBodyUnread(req: Request): boolean {
  if (req.complete || req.readableEnded) return false;
  const declared = req.headers['content-length'];
  if (declared === undefined) return req.headers['transfer-encoding'] !== undefined;
  return Number(declared) > DRAIN_LIMIT;
}

/** The error middleware of a surface: log, translate once, render in the surface's format. */
export function surfaceErrorHandler(render: ErrorRenderer, logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const failure = translate(error);
    const log = logger.child({ requestId: req.context?.requestId });
    if (failure.status >= 500) log.error({ err: error, path: req.originalUrl }, 'request failed');
    else log.debug({ code: failure.code, path: req.originalUrl }, 'request refused');
    if (res.headersSent) {
      res.destroy(); // a streamed response that failed midway: cut it rather than append an error
      return;
    }
    // an answer given before the body was read (401, 413, quota): stop reading rather than drain it
    if (leavesLargeBodyUnread(req)) closeAfterResponse(req, res);
    for (const [name, value] of Object.entries(failure.headers)) res.setHeader(name, value);
    try {
      render(failure, req, res);
    } catch (renderError) {
      // Only response validation (tests) can throw here: the status is not in the contract for this
      // operation. Answer a 500 in the surface's format rather than Express's page; say why in the log.
      log.error({ err: renderError, original: failure.code }, 'error response drifted from the contract');
      if (res.headersSent) return void res.destroy();
      const internal = translate(new AppError('internal_error', 'An unexpected error occurred'));
      res.statusCode = 500;
      try {
        render(internal, req, res);
      } catch {
        res.end();
      }
    }
  };
}
