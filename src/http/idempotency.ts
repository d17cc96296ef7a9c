// `Idempotency-Key` on POST: the first response is stored and replayed for a retry with the same
// key and body; the same key with a different body is a 422, and a retry that arrives while the
// first is still running a 409. Keys belong to one credential (organization + actor).
// JSON routes fingerprint the parsed body before running; stream routes (uploads) cannot, so they
// settle the key once the content is hashed (a multipart body: its fields and files), before committing
// anything (streamIdempotency).
import type { NextFunction, Request, Response } from 'express';
import type { IdempotencyStore } from '../modules/idempotency/idempotency.store.ts';
import { sha256 } from '../shared/crypto.ts';
import { AppError } from '../shared/errors.ts';
import type { Logger } from '../shared/logger.ts';
import { actorOf } from './context.ts';

const REPLAYED_HEADERS = ['content-type', 'location'];

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` are the same request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export type IdempotencyMiddleware = (req: Request, res: Response, next: NextFunction) => Promise<void>;

const scopeOf = (req: Request) => {
  const actor = actorOf(req);
  return `${actor.organizationId ?? '-'}:${actor.type}:${actor.id}`;
};
const operationOf = (req: Request) => `${req.method} ${req.originalUrl.split('?')[0]}`;

/**
 * A replayed problem names this request's id, as its X-Request-Id header does: the id is the one a
 * client quotes to support, and the log has this request under it (the first request's is in the log too).
 */
function withThisRequestId(body: unknown, req: Request): unknown {
  if (typeof body !== 'object' || body === null || !('requestId' in body)) return body;
  return { ...body, requestId: req.context.requestId };
}

/**
 * Claims the key for this fingerprint. Returns true when the request is answered already (a replay);
 * throws for a reuse with another request or a first request still running. When claimed, the JSON
 * response is stored before it leaves, so a retry right after it finds it. A response that is not
 * JSON (a stream: SSE, a download) cannot be replayed: its claim is released as it ends, and the
 * response itself passes untouched.
 */
async function claimOrReplay(
  store: IdempotencyStore,
  logger: Logger,
  req: Request,
  res: Response,
  key: string,
  fingerprint: string,
): Promise<boolean> {
  const scope = scopeOf(req);
  const claim = await store.claim(scope, key, fingerprint);
  if (!claim.claimed) {
    const { record } = claim;
    if (record.fingerprint !== fingerprint)
      throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with a different request');
    if (!record.response) {
      throw new AppError('idempotency_in_progress', 'The first request with this Idempotency-Key is still running', {
        headers: { 'Retry-After': '1' },
      });
    }
    res.status(record.response.status).set(record.response.headers).setHeader('Idempotent-Replayed', 'true');
    res.send(JSON.stringify(withThisRequestId(record.response.body, req)));
    return true;
  }
  // A client that disconnects early leaves the claim in progress: the work may still commit, so it is not released.
  const send = res.json.bind(res);
  let settled = false;
  res.json = (body: unknown) => {
    if (settled) return send(body);
    settled = true;
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    for (const name of REPLAYED_HEADERS) if (res.get(name)) headers[name] = res.get(name)!;
    const stored =
      res.statusCode >= 500
        ? store.release(scope, key)
        : store.complete(scope, key, { status: res.statusCode, headers, body });
    stored.then(
      () => send(body),
      (error: unknown) => {
        logger.error({ err: error, requestId: req.context.requestId }, 'could not store the idempotent response');
        send(body);
      },
    );
    return res;
  };
  // The claim is released before the stream's last byte leaves: a client that sees the end and retries
  // at once must find the key free, not a 409 from a release still on its way to the database.
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((...args: unknown[]) => {
    if (settled) return end(...args);
    settled = true;
    store
      .release(scope, key)
      .catch((error: unknown) =>
        logger.error({ err: error, requestId: req.context.requestId }, 'could not release an idempotency key'),
      )
      .finally(() => end(...args));
    return res;
  }) as Response['end'];
  return false;
}

export function idempotent(store: IdempotencyStore, logger: Logger): IdempotencyMiddleware {
  return async (req, res, next) => {
    const key = req.get('idempotency-key');
    if (key === undefined) return next();
    if (req.body === undefined && !req.complete) {
      // a body nobody parsed is a stream: hashing `undefined` would make every body the same request
      throw new Error('idempotent() needs a parsed body; stream routes use streamIdempotency');
    }
    const fingerprint = sha256(`${operationOf(req)}\n${canonicalJson(req.body)}`);
    if (await claimOrReplay(store, logger, req, res, key, fingerprint)) return;
    next();
  };
}

/** What a stream route gets on requests that carry an Idempotency-Key. */
export interface StreamIdempotency {
  /**
   * Call once the whole body has been read and its content hashed (a multipart body: its fields and
   * files, not its bytes, which differ by boundary), before anything is committed. Resolves true
   * when the request was answered (a replay of the first response): the route then stops and
   * discards what it streamed. Throws 422 when the key was used with another body, 409 while the
   * first request runs.
   */
  settle(contentSha256: string): Promise<boolean>;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** Set on stream surfaces when the request carries an Idempotency-Key. */
    streamIdempotency?: StreamIdempotency;
  }
}

export function streamIdempotency(store: IdempotencyStore, logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const key = req.get('idempotency-key');
    if (key === undefined) return next();
    // the media type without its parameters: a multipart boundary is new on every retry
    const declaredType = (req.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    req.streamIdempotency = {
      settle: (contentSha256) =>
        claimOrReplay(
          store,
          logger,
          req,
          res,
          key,
          sha256(`${operationOf(req)}\n${declaredType}\nsha256:${contentSha256}`),
        ),
    };
    next();
  };
}
