// Browser single sign-on (the spec's /auth/sso and /auth/callback/idp): form posts (SAML's POST
// binding), redirects, and HTML pages for errors, since a person is looking at the answer.
import express, { Router, type RequestHandler } from 'express';
import { AppError } from '../../shared/errors.ts';
import { hasBody } from '../body-guards.ts';
import { bodyGuard } from './body.ts';
import { surfaceErrorHandler } from './failure.ts';
import type { SurfaceDeps } from './credential.ts';
import { htmlErrorPage } from './renderers.ts';
import type { SsoRoutes } from './surface-routes.ts';

export interface SsoSurfaceOptions {
  routes: SsoRoutes[];
}

/** A SAML response in the POST binding is base64 XML with a certificate: tens of kilobytes. */
export const SSO_FORM_LIMIT_BYTES = 256 * 1024;

export function ssoSurface(deps: SurfaceDeps, { routes }: SsoSurfaceOptions): Router {
  const { config, logger } = deps;
  const render = htmlErrorPage();
  const parseForm = express.urlencoded({ extended: false, limit: SSO_FORM_LIMIT_BYTES, parameterLimit: 50 });
  const surface = Router();
  surface.use((_req, res, next) => {
    // codes and assertions pass through these pages: never cached, never leaked in a Referer, never framed
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    next();
  });
  surface.use(bodyGuard(render, { maxBytes: SSO_FORM_LIMIT_BYTES, timeoutMs: config.http.bodyTimeoutMs }));
  surface.use(((req, res, next) => {
    if (!hasBody(req)) return next();
    if (!req.is('application/x-www-form-urlencoded'))
      throw new AppError('unsupported_media_type', 'Sign-in posts are HTML forms (application/x-www-form-urlencoded)');
    parseForm(req, res, next);
  }) as RequestHandler);
  const table = Router();
  for (const register of routes) register(table);
  surface.use(table);
  surface.use((_req, _res, next) => next(new AppError('route_not_found', 'There is no sign-in page at this address')));
  surface.use(surfaceErrorHandler(render, logger));
  return surface;
}
