// SCIM 2.0 (RFC 7644) for directory provisioning: its own bearer tokens (one per directory, not API
// keys), application/scim+json in and out, SCIM error bodies.
import express, { Router, type RequestHandler } from 'express';
import { AppError } from '../../shared/errors.ts';
import { bearerCredentialOf } from '../authenticate.ts';
import { hasBody } from '../body-guards.ts';
import { noteSuspectEscape, rejectNulInUrl, rejectUnstorableJson } from '../text-guard.ts';
import { bodyGuard, JSON_BODY_LIMIT_BYTES } from './body.ts';
import { surfaceErrorHandler } from './failure.ts';
import type { SurfaceDeps } from './credential.ts';
import { SCIM_MEDIA_TYPE, scimError } from './renderers.ts';
import type { DirectoryTokenVerifier, ScimRoutes } from './surface-routes.ts';

export type { DirectoryTokenVerifier };

export interface ScimSurfaceOptions {
  routes: ScimRoutes[];
  /** Without a verifier no token is valid. */
  verifyToken?: DirectoryTokenVerifier;
}

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="SCIM"' };

function directoryCredential(verifyToken: DirectoryTokenVerifier): RequestHandler {
  return async (req, _res, next) => {
    const token = bearerCredentialOf(req.get('authorization'));
    if (!token)
      throw new AppError('unauthenticated', 'Send Authorization: Bearer <directory SCIM token>', {
        headers: CHALLENGE,
      });
    const actor = await verifyToken(token, req);
    if (!actor) throw new AppError('unauthenticated', 'The SCIM token is not valid', { headers: CHALLENGE });
    req.context.actor = actor;
    next();
  };
}

export function scimSurface(deps: SurfaceDeps, { routes, verifyToken = async () => null }: ScimSurfaceOptions): Router {
  const { config, logger } = deps;
  const render = scimError();
  const parse = express.json({
    limit: JSON_BODY_LIMIT_BYTES,
    type: [SCIM_MEDIA_TYPE, 'application/json'],
    verify: noteSuspectEscape,
  });
  const surface = Router();
  surface.use((_req, res, next) => {
    // every answer is SCIM: res.json keeps a Content-Type already set
    res.setHeader('Content-Type', `${SCIM_MEDIA_TYPE}; charset=utf-8`);
    next();
  });
  surface.use(directoryCredential(verifyToken));
  surface.use(bodyGuard(render, { maxBytes: JSON_BODY_LIMIT_BYTES, timeoutMs: config.http.bodyTimeoutMs }));
  surface.use(((req, res, next) => {
    if (!hasBody(req)) return next();
    if (!req.is([SCIM_MEDIA_TYPE, 'application/json']))
      throw new AppError('unsupported_media_type', `SCIM bodies are ${SCIM_MEDIA_TYPE}`);
    parse(req, res, next);
  }) as RequestHandler);
  surface.use(rejectNulInUrl, rejectUnstorableJson);
  const table = Router();
  for (const register of routes) register(table);
  surface.use(table);
  surface.use((_req, _res, next) => next(new AppError('route_not_found', 'No SCIM endpoint exists at this path')));
  surface.use(surfaceErrorHandler(render, logger));
  return surface;
}
