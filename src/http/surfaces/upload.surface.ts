// Streamed uploads: the caller is authenticated, limited and its quota checked before a byte of the
// body is read (an unread body waits in TCP's buffers); no JSON parser; the route streams the body
// itself (receiveUpload hashes it on the way) and settles an Idempotency-Key with that hash.
import { Router, type Request, type RequestHandler } from 'express';
import type { Actor } from '../../shared/access/actor.ts';
import { AppError } from '../../shared/errors.ts';
import { withBearerChallenge } from '../authenticate.ts';
import { hasBody } from '../body-guards.ts';
import { actorOf } from '../context.ts';
import type { IdempotencyStore } from '../../modules/idempotency/idempotency.store.ts';
import { streamIdempotency } from '../idempotency.ts';
import { refuseMalformedIds } from '../path-ids.ts';
import { bodyGuard } from './body.ts';
import { afterCredential, apiCredential, type SurfaceDeps } from './credential.ts';
import { surfaceErrorHandler } from './failure.ts';
import { problemJson } from './renderers.ts';
import type { UploadRouter, UploadRoutes } from './surface-routes.ts';

/** Refuses an upload (throws an AppError: 413, 403, 429...) from who sends it and what it announces. */
export type UploadQuota = (
  actor: Actor,
  upload: { declaredBytes: number | undefined; contentType: string | undefined; path: string },
) => Promise<void>;

export interface UploadSurfaceOptions {
  routes: UploadRoutes[];
  /** Idempotency-Key records, settled with the hash of the streamed body. */
  idempotency: IdempotencyStore;
  quota?: UploadQuota;
}

const uploadLengthOf = (req: Request) => {
  const length = Number(req.headers['upload-length'] ?? Number.NaN);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
};
const declaredBytesOf = (req: Request) =>
  req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);

/**
 * Only the registered routes answer here; any other request passes on to the JSON API untouched,
 * so GET /api/resources stays JSON while POST /api/resources streams.
 */
export function uploadSurface(deps: SurfaceDeps, { routes, idempotency, quota }: UploadSurfaceOptions): Router {
  const { config, logger } = deps;
  const render = withBearerChallenge(problemJson(config.baseUrl));
  const surface = Router();
  const chain = (maxBytes: number): RequestHandler[] => [
    apiCredential(deps),
    (req, _res, next) => (actorOf(req), next()), // 401 before the body is touched
    ...afterCredential(deps),
    refuseMalformedIds,
    async (req, _res, next) => {
      if (!hasBody(req))
        throw new AppError('validation_failed', 'An upload needs a body', {
          errors: [{ field: 'body', message: 'is required' }],
        });
      const declaredBytes = declaredBytesOf(req);
      if (declaredBytes !== undefined && declaredBytes > maxBytes)
        throw new AppError('payload_too_large', `The upload may not exceed ${maxBytes} bytes`);
      await quota?.(actorOf(req), { declaredBytes, contentType: req.get('content-type'), path: req.path });
      next();
    },
    streamIdempotency(idempotency, logger),
    // no deadline of ours (a 500 MB upload on a slow link is legitimate): Node's requestTimeout bounds it
    bodyGuard(render, { maxBytes, timeoutMs: 0, countChunks: false }),
  ];
  const resumableChain = (maxBytes: number): RequestHandler[] => [
    apiCredential(deps),
    (req, _res, next) => (actorOf(req), next()),
    ...afterCredential(deps),
    refuseMalformedIds,
    async (req, _res, next) => {
      // a creation announces the whole file's length; the quota sees it before any byte
      if (req.method === 'POST')
        await quota?.(actorOf(req), {
          declaredBytes: uploadLengthOf(req),
          contentType: req.get('content-type'),
          path: req.path,
        });
      next();
    },
    bodyGuard(render, { maxBytes, timeoutMs: 0, countChunks: false }),
  ];
  const router: UploadRouter = {
    post: (path, options, handler) => void surface.post(path, ...chain(options.maxBytes), handler),
    put: (path, options, handler) => void surface.put(path, ...chain(options.maxBytes), handler),
    resumable: (path, options, handler) => {
      surface.options(path, handler);
      for (const method of options.methods) surface[method](path, ...resumableChain(options.maxBytes), handler);
    },
  };
  for (const register of routes) register(router);
  surface.use(surfaceErrorHandler(render, logger));
  return surface;
}
