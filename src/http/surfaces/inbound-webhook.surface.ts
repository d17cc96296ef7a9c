// Signed webhooks from other services (the identity service's POST /webhooks/idp): the body is kept
// as the exact bytes received, because the signature is computed over them; a route verifies the
// signature before anything reads the payload. Errors are problem+json.
import express, { Router, type Request } from 'express';
import { AppError } from '../../shared/errors.ts';
import { jsonBodyRefusal } from '../text-guard.ts';
import { bodyGuard, JSON_BODY_LIMIT_BYTES } from './body.ts';
import { surfaceErrorHandler } from './failure.ts';
import type { SurfaceDeps } from './credential.ts';
import { problemJson } from './renderers.ts';
import type { InboundWebhookRouter, InboundWebhookRoutes } from './surface-routes.ts';

declare module 'express-serve-static-core' {
  interface Request {
    /** The exact bytes received, on the inbound webhook surface. */
    rawBody?: Buffer;
  }
}

/** The payload of a verified webhook, as JSON, held to the rules of every JSON body (text-guard.ts). */
export function jsonPayload<T = unknown>(req: Request): T {
  const raw = req.rawBody ?? Buffer.alloc(0);
  let payload: unknown;
  try {
    payload = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('malformed_body', 'The webhook body is not valid JSON');
  }
  const refusal = jsonBodyRefusal(payload, raw);
  if (refusal) throw refusal;
  return payload as T;
}

export function inboundWebhookSurface(deps: SurfaceDeps, { routes }: { routes: InboundWebhookRoutes[] }): Router {
  const { config, logger } = deps;
  const render = problemJson(config.baseUrl);
  const keepRaw = express.raw({ type: () => true, limit: JSON_BODY_LIMIT_BYTES });
  const surface = Router();
  surface.use(bodyGuard(render, { maxBytes: JSON_BODY_LIMIT_BYTES, timeoutMs: config.http.bodyTimeoutMs }));
  surface.use(keepRaw);
  surface.use((req, _res, next) => {
    req.rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    next();
  });
  const router: InboundWebhookRouter = {
    receive: (path, route) =>
      void surface.post(
        path,
        async (req, _res, next) => {
          await route.verify(req as Request & { rawBody: Buffer });
          next();
        },
        route.handle,
      ),
  };
  for (const register of routes) register(router);
  surface.use((_req, _res, next) => next(new AppError('route_not_found', 'No webhook receiver exists at this path')));
  surface.use(surfaceErrorHandler(render, logger));
  return surface;
}
