// Streamed uploads: the caller is authenticated, limited and its quota checked before a byte of the
// body is read (an unread body waits in TCP's buffers); no JSON parser; the route streams the body
// itself (receiveUpload hashes it on the way) and settles an Idempotency-Key with that hash.
import { Router, type Request, type RequestHandler } from 'express';
import type { Container } from '../../container.ts';
import type { Actor } from '../../shared/access/actor.ts';
import { AppError } from '../../shared/errors.ts';
import { hasBody } from '../body-guards.ts';
import { actorOf } from '../context.ts';
import { streamIdempotency } from '../idempotency.ts';
import { refuseMalformedIds } from '../path-ids.ts';
import { bodyGuard } from './body.ts';
import { afterCredential, apiCredential } from './credential.ts';
import { surfaceErrorHandler } from './failure.ts';
import { problemJson } from './renderers.ts';

/** Refuses an upload (throws an AppError: 413, 403, 429...) from who sends it and what it announces. */
export type UploadQuota = (actor: Actor, upload: { declaredBytes: number | undefined; contentType: string | undefined; path: string }) => Promise<void>;

export interface UploadRouteOptions {
  /** The largest body this route takes (500 MB for resources). */
  maxBytes: number;
}

export interface UploadRouter {
  post(path: string, options: UploadRouteOptions, handler: RequestHandler): void;
  put(path: string, options: UploadRouteOptions, handler: RequestHandler): void;
  /**
   * A resumable (tus) endpoint: the given methods behind the credential and the limits (the body, when
   * there is one, is a PATCH's bytes, guarded to `maxBytes`); OPTIONS, the protocol's discovery and a
   * browser's preflight, carries no credential and reaches the handler as is.
   */
  resumable(path: string, options: UploadRouteOptions & { methods: ReadonlyArray<'post' | 'head' | 'patch' | 'delete'> }, handler: RequestHandler): void;
}

/** A module's upload routes, relative to /api (`/resources`), mounted ahead of the JSON API. */
export type UploadRoutes = (uploads: UploadRouter) => void;

export interface UploadSurfaceOptions {
  routes: UploadRoutes[];
  quota?: UploadQuota;
}

const uploadLengthOf = (req: Request) => {
  const length = Number(req.headers['upload-length'] ?? Number.NaN);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
};
const declaredBytesOf = (req: Request) => (req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']));

/**
 * Only the registered routes answer here; any other request passes on to the JSON API untouched,
 * so GET /api/resources stays JSON while POST /api/resources streams.
 */
export function uploadSurface(container: Container, { routes, quota }: UploadSurfaceOptions): Router {
  const { config, logger, services } = container;
  const render = problemJson(config.baseUrl);
  const surface = Router();
  const chain = (maxBytes: number): RequestHandler[] => [
    apiCredential(container),
    (req, _res, next) => (actorOf(req), next()), // 401 before the body is touched
    ...afterCredential(container),
    refuseMalformedIds,
    async (req, _res, next) => {
      if (!hasBody(req)) throw new AppError('validation_failed', 'An upload needs a body', { errors: [{ field: 'body', message: 'is required' }] });
      const declaredBytes = declaredBytesOf(req);
      if (declaredBytes !== undefined && declaredBytes > maxBytes) throw new AppError('payload_too_large', `The upload may not exceed ${maxBytes} bytes`);
      await quota?.(actorOf(req), { declaredBytes, contentType: req.get('content-type'), path: req.path });
      next();
    },
    streamIdempotency(services.idempotency, logger),
    // no deadline of ours (a 500 MB upload on a slow link is legitimate): Node's requestTimeout bounds it
    bodyGuard(render, { maxBytes, timeoutMs: 0, countChunks: false }),
  ];
  const resumableChain = (maxBytes: number): RequestHandler[] => [
    apiCredential(container),
    (req, _res, next) => (actorOf(req), next()),
    ...afterCredential(container),
    refuseMalformedIds,
    async (req, _res, next) => {
      // a creation announces the whole file's length; the quota sees it before any byte
      if (req.method === 'POST') await quota?.(actorOf(req), { declaredBytes: uploadLengthOf(req), contentType: req.get('content-type'), path: req.path });
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
