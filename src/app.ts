// createApp(container): the Express app without listen(), so tests drive it in process.
// Each kind of caller has its own surface (router, body parsing, credential, error format) over one
// shared translation of errors; see http/surfaces/ and docs/surfaces.md.
import express, { type Express, type Request } from 'express';
import { adminPortal } from '../admin/mount.ts';
import type { Container } from './container.ts';
import { requestContext } from './http/context.ts';
import { bracketAwareQueryParser } from './http/query-parser.ts';
import { sequence } from './http/dispatch.ts';
import { docsRoutes } from './http/docs.routes.ts';
import { loadContract, type Contract } from './http/openapi.ts';
import { idempotent } from './http/idempotency.ts';
import { requestLog } from './http/request-log.ts';
import { apiSurface, type ApiRoutes } from './http/surfaces/api.surface.ts';
import { inboundWebhookSurface, type InboundWebhookRoutes } from './http/surfaces/inbound-webhook.surface.ts';
import { scimSurface, type DirectoryTokenVerifier, type ScimRoutes } from './http/surfaces/scim.surface.ts';
import { ssoSurface, type SsoRoutes } from './http/surfaces/sso.surface.ts';
import { uploadSurface, type UploadQuota, type UploadRoutes } from './http/surfaces/upload.surface.ts';
import { modules } from './modules.ts';
import { pageRoutes } from './modules/pages/pages.routes.ts';
import type { ModuleManifest, RouteContext } from './shared/module-manifest.ts';

/** Where each surface is mounted (documented in the README's surface table). */
export const SURFACE_PREFIXES = { uploads: '/api', scim: '/scim/v2', sso: '/auth', inboundWebhooks: '/webhooks', api: '/' } as const;

export interface SurfaceRoutes {
  api: ApiRoutes[];
  uploads: UploadRoutes[];
  scim: ScimRoutes[];
  sso: SsoRoutes[];
  inboundWebhooks: InboundWebhookRoutes[];
}

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

/** The modules' routes, by surface, in the order of the module list (src/modules.ts). */
function moduleRoutes(container: Container): SurfaceRoutes {
  const context: RouteContext = { container, idempotency: idempotent(container.services.idempotency, container.logger) };
  const manifests: readonly ModuleManifest[] = modules;
  const on = <S extends keyof SurfaceRoutes>(surface: S): SurfaceRoutes[S] =>
    manifests.flatMap((m) => {
      const routes = m.routes?.[surface];
      return routes ? [routes(context)] : [];
    }) as SurfaceRoutes[S];
  return { api: on('api'), uploads: on('uploads'), scim: on('scim'), sso: on('sso'), inboundWebhooks: on('inboundWebhooks') };
}

export function createApp(container: Container, options: AppOptions = {}): Express {
  const { config, logger } = container;
  const contract = options.contract ?? loadContract();
  const routes = moduleRoutes(container);
  const extra = options.routes ?? {};
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // hashing every JSON body costs CPU on each request; lists change too often to cache
  app.set('trust proxy', config.http.trustProxy);
  app.set('query parser', 'extended'); // bracketed filters: createdAt[after]=..., order[lastName]=asc
  app.set('query parser', bracketAwareQueryParser(app.get('query parser fn')));

  const api = apiSurface(container, { contract, routes: [...routes.api, ...(extra.api ?? [])] });
  app.use(sequence([requestContext(), requestLog(logger)]));
  // Most calls are JSON API calls that nothing before the API surface answers: they go straight to it
  // instead of entering the docs, pages, portal and the other surfaces' routers first.
  app.use((req, res, next) => (straightToApi(req) ? api(req, res, next) : next()));
  app.use(docsRoutes(contract));
  app.use(pageRoutes(config));
  // AdminJS parses its own bodies and keeps its own session: before every surface
  app.use('/admin', adminPortal(container, { eager: config.nodeEnv !== 'test' }));
  // The specific surfaces first; uploads answer only their own routes and pass everything else on.
  app.use(SURFACE_PREFIXES.uploads, uploadSurface(container, { routes: [...routes.uploads, ...(extra.uploads ?? [])], quota: options.uploadQuota }));
  app.use(SURFACE_PREFIXES.scim, scimSurface(container, { routes: [...routes.scim, ...(extra.scim ?? [])], verifyToken: options.scimTokens }));
  app.use(SURFACE_PREFIXES.sso, ssoSurface(container, { routes: [...routes.sso, ...(extra.sso ?? [])] }));
  app.use(SURFACE_PREFIXES.inboundWebhooks, inboundWebhookSurface(container, { routes: [...routes.inboundWebhooks, ...(extra.inboundWebhooks ?? [])] }));
  app.use(SURFACE_PREFIXES.api, api);
  return app;
}
