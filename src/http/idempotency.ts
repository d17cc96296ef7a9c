// `Idempotency-Key` on POST: the first response is stored and replayed for a retry with the same
// key and body; the same key with a different body is a 422, and a retry that arrives while the
// first is still running a 409. Keys belong to one credential (organization + actor).
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
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export type IdempotencyMiddleware = (req: Request, res: Response, next: NextFunction) => Promise<void>;

export function idempotent(store: IdempotencyStore, logger: Logger): IdempotencyMiddleware {
  return async (req, res, next) => {
    const key = req.get('idempotency-key');
    if (key === undefined) return next();
    const actor = actorOf(req);
    const scope = `${actor.organizationId ?? '-'}:${actor.type}:${actor.id}`;
    const fingerprint = sha256(`${req.method} ${req.originalUrl.split('?')[0]}\n${canonicalJson(req.body)}`);
    const claim = await store.claim(scope, key, fingerprint);
    if (!claim.claimed) {
      const { record } = claim;
      if (record.fingerprint !== fingerprint) throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with a different request');
      if (!record.response) {
        throw new AppError('idempotency_in_progress', 'The first request with this Idempotency-Key is still running', { headers: { 'Retry-After': '1' } });
      }
      res.status(record.response.status).set(record.response.headers).setHeader('Idempotent-Replayed', 'true');
      res.send(JSON.stringify(record.response.body));
      return;
    }
    // Store the response before it leaves, so a retry right after it already finds it. A client that
    // disconnects early leaves the claim in progress: the work may still commit, so it is not released.
    const send = res.json.bind(res);
    let settled = false;
    res.json = (body: unknown) => {
      if (settled) return send(body);
      settled = true;
      const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
      for (const name of REPLAYED_HEADERS) if (res.get(name)) headers[name] = res.get(name)!;
      const stored = res.statusCode >= 500 ? store.release(scope, key) : store.complete(scope, key, { status: res.statusCode, headers, body });
      stored.then(
        () => send(body),
        (error: unknown) => {
          logger.error({ err: error, requestId: req.context.requestId }, 'could not store the idempotent response');
          send(body);
        },
      );
      return res;
    };
    next();
  };
}
