// createApp(container): the Express app without listen(), so tests drive it in process.
// Each kind of caller has its own surface (router, body parsing, credential, error format) over one
// shared translation of errors; see http/surfaces/ and docs/architecture.md (Surfaces).
import express, { type Express, type Request } from 'express';
import { adminPortal } from '../admin/mount.ts';
import type { AppContext } from './app-context.ts';
import { requestContext } from './http/context.ts';
import { parseQuery } from './http/query-parser.ts';
import { sequence } from './http/dispatch.ts';
import { docsRoutes } from './http/docs.routes.ts';
import { loadContract, type Contract } from './http/openapi.ts';
import { idempotent } from './http/idempotency.ts';
import { requestLog } from './http/request-log.ts';
import { apiSurface } from './http/surfaces/api.surface.ts';
import { surfaceErrorHandler } from './http/surfaces/failure.ts';
import { problemJson } from './http/surfaces/renderers.ts';
import type { SurfaceDeps } from './http/surfaces/credential.ts';
import { inboundWebhookSurface } from './http/surfaces/inbound-webhook.surface.ts';
import { scimSurface, type DirectoryTokenVerifier } from './http/surfaces/scim.surface.ts';
import { ssoSurface } from './http/surfaces/sso.surface.ts';
import type { SurfaceRoutes as SurfaceRoute } from './http/surfaces/surface-routes.ts';
import { uploadSurface, type UploadQuota } from './http/surfaces/upload.surface.ts';
import { pageRoutes } from './modules/pages/pages.routes.ts';

/** Where each surface is mounted (see docs/architecture.md, Surfaces). */
export const SURFACE_PREFIXES = {
  uploads: '/api',
  scim: '/scim/v2',
  sso: '/auth',
  inboundWebhooks: '/webhooks',
  api: '/',
} as const;

/** Every module's registrations, by surface. */
export type SurfaceRoutes = { [S in keyof SurfaceRoute]: Array<SurfaceRoute[S]> };

export interface AppOptions {
  contract?: Contract;
  /** Routes added to the modules' own on each surface (tests mount test-only routes this way). */
  routes?: Partial<SurfaceRoutes>;
  scimTokens?: DirectoryTokenVerifier;
  uploadQuota?: UploadQuota;
}

/**
 * A JSON API call that no earlier handler could answer: under /api/ but not the contract and docs
 * (docs.routes.ts), not a POST or PUT (the upload surface's streamed bodies), and not the resumable
 * uploads (/api/uploads: tus speaks PATCH, HEAD, DELETE and OPTIONS on the upload surface). Everything
 * else takes the full way through app.use() below, in order.
 */
const API_CALL = /^\/api\/(?!docs|openapi\.|uploads(?:[/?]|$))/i; // case-insensitive, as Express's routing is

function straightToApi(req: Request): boolean {
  return req.method !== 'POST' && req.method !== 'PUT' && API_CALL.test(req.url);
}

/** The modules' routes, by surface, each built from its module's own context. */
function moduleRoutes(app: AppContext): SurfaceRoutes {
  const idempotency = idempotent(app.services.idempotency, app.logger);
  const on = <S extends keyof SurfaceRoutes>(surface: S): SurfaceRoutes[S] =>
    app.modules.flatMap(({ manifest, context }) => {
      const routes = manifest.routes?.[surface];
      return routes ? [routes({ ...context, idempotency })] : [];
    }) as SurfaceRoutes[S];
  return {
    api: on('api'),
    uploads: on('uploads'),
    scim: on('scim'),
    sso: on('sso'),
    inboundWebhooks: on('inboundWebhooks'),
  };
}

/** The SCIM credential check of the module that owns directories, if one does. */
function moduleScimTokens(app: AppContext): DirectoryTokenVerifier | undefined {
  for (const { manifest, context } of app.modules) {
    const verifier = manifest.scimTokens?.(context);
    if (verifier) return verifier;
  }
  return undefined;
}

export function createApp(container: AppContext, options: AppOptions = {}): Express {
  const { config, logger, services } = container;
  const contract = options.contract ?? loadContract();
  const routes = moduleRoutes(container);
  const surfaceDeps: SurfaceDeps = {
    config,
    logger,
    clock: container.clock,
    limiter: container.limiter,
    auth: services.auth,
    recordImpersonatedRequest: (entry) => services.impersonation.recordRequest(entry),
  };
  const extra = options.routes ?? {};
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // hashing every JSON body costs CPU on each request; lists change too often to cache
  app.set('trust proxy', config.http.trustProxy);
  app.set('query parser', parseQuery); // bracketed filters: createdAt[after]=..., order[lastName]=asc

  const api = apiSurface(surfaceDeps, { contract, routes: [...routes.api, ...(extra.api ?? [])] });
  app.use(sequence([requestContext(), requestLog(logger)]));
  // Most calls are JSON API calls that nothing before the API surface answers: they go straight to it
  // instead of entering the docs, pages, portal and the other surfaces' routers first.
  app.use((req, res, next) => (straightToApi(req) ? api(req, res, next) : next()));
  app.use(docsRoutes(contract));
  app.use(pageRoutes(config));
  // AdminJS parses its own bodies and keeps its own session: before every surface
  app.use('/admin', adminPortal(container, { eager: config.nodeEnv !== 'test' }));
  // The specific surfaces first; uploads answer only their own routes and pass everything else on.
  app.use(
    SURFACE_PREFIXES.uploads,
    uploadSurface(surfaceDeps, {
      routes: [...routes.uploads, ...(extra.uploads ?? [])],
      idempotency: services.idempotency,
      quota: options.uploadQuota,
    }),
  );
  app.use(
    SURFACE_PREFIXES.scim,
    scimSurface(surfaceDeps, {
      routes: [...routes.scim, ...(extra.scim ?? [])],
      verifyToken: options.scimTokens ?? moduleScimTokens(container),
    }),
  );
  app.use(SURFACE_PREFIXES.sso, ssoSurface(surfaceDeps, { routes: [...routes.sso, ...(extra.sso ?? [])] }));
  app.use(
    SURFACE_PREFIXES.inboundWebhooks,
    inboundWebhookSurface(surfaceDeps, { routes: [...routes.inboundWebhooks, ...(extra.inboundWebhooks ?? [])] }),
  );
  app.use(SURFACE_PREFIXES.api, api);
  // What failed outside every surface (a path the docs', pages' or portal's router could not
  // percent-decode) is answered as the API answers, not by Express's page with its stack trace.
  app.use(surfaceErrorHandler(problemJson(config.baseUrl), logger));
  return app;
}
