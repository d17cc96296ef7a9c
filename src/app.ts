// createApp(container): the Express app without listen(), so tests drive it in process.
// Each kind of caller has its own surface (router, body parsing, credential, error format) over one
// shared translation of errors; see http/surfaces/ and docs/pending/surfaces.md.
import express, { type Express, type Router } from 'express';
import { adminPortal } from '../admin/mount.ts';
import type { Container } from './container.ts';
import { requestContext } from './http/context.ts';
import { bracketAwareQueryParser } from './http/query-parser.ts';
import { docsRoutes } from './http/docs.routes.ts';
import { loadContract, type Contract } from './http/openapi.ts';
import { idempotent } from './http/idempotency.ts';
import { requestLog } from './http/request-log.ts';
import { apiSurface, type ApiRoutes } from './http/surfaces/api.surface.ts';
import { inboundWebhookSurface, type InboundWebhookRoutes } from './http/surfaces/inbound-webhook.surface.ts';
import { scimSurface, type DirectoryTokenVerifier, type ScimRoutes } from './http/surfaces/scim.surface.ts';
import { ssoSurface, type SsoRoutes } from './http/surfaces/sso.surface.ts';
import { uploadSurface, type UploadQuota, type UploadRoutes } from './http/surfaces/upload.surface.ts';
import { activityRoutes } from './modules/activity/activity.routes.ts';
import { apiKeyRoutes } from './modules/api-keys/api-key.routes.ts';
import { authRoutes } from './modules/auth/auth.routes.ts';
import { crudRoutes } from './modules/crud/crud.routes.ts';
import { jobAdminRoutes } from './modules/jobs-admin/job-admin.routes.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { impersonationRoutes } from './modules/impersonation/impersonation.routes.ts';
import { mailRoutes } from './modules/mail/mail.routes.ts';
import { organizationRoutes } from './modules/organizations/organization.routes.ts';
import { pageRoutes } from './modules/pages/pages.routes.ts';
import { passwordResetRoutes, userAdminRoutes } from './modules/users/user.routes.ts';
import { webhookRoutes } from './modules/webhooks/webhook.routes.ts';

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

/** The modules' routes, by surface. */
function moduleRoutes(container: Container): SurfaceRoutes {
  const { db, logger, services } = container;
  const idempotency = idempotent(services.idempotency, logger);
  const api: ApiRoutes[] = [
    (router: Router) => {
      healthRoutes(router, db);
      authRoutes(router, services.auth);
      apiKeyRoutes(router, services.apiKeys);
      passwordResetRoutes(router, services.passwords);
      userAdminRoutes(router, services.users, services.userDeletion, services.passwords);
      activityRoutes(router, services.activity);
      impersonationRoutes(router, services.impersonation);
      mailRoutes(router, services.mail);
      crudRoutes(router, services.members, idempotency);
      crudRoutes(router, services.events, idempotency);
      crudRoutes(router, services.courses, idempotency);
      webhookRoutes(router, services.webhooks, services.webhookDeliveries, idempotency);
      jobAdminRoutes(router, services.jobs);
      organizationRoutes(router, services.organizations);
    },
  ];
  return { api, uploads: [], scim: [], sso: [], inboundWebhooks: [] };
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

  app.use(requestContext());
  app.use(requestLog(logger));
  app.use(docsRoutes(contract));
  app.use(pageRoutes(config));
  // AdminJS parses its own bodies and keeps its own session: before every surface
  app.use('/admin', adminPortal(container, { eager: config.nodeEnv !== 'test' }));
  // The specific surfaces first; uploads answer only their own routes and pass everything else on.
  app.use(SURFACE_PREFIXES.uploads, uploadSurface(container, { routes: [...routes.uploads, ...(extra.uploads ?? [])], quota: options.uploadQuota }));
  app.use(SURFACE_PREFIXES.scim, scimSurface(container, { routes: [...routes.scim, ...(extra.scim ?? [])], verifyToken: options.scimTokens }));
  app.use(SURFACE_PREFIXES.sso, ssoSurface(container, { routes: [...routes.sso, ...(extra.sso ?? [])] }));
  app.use(SURFACE_PREFIXES.inboundWebhooks, inboundWebhookSurface(container, { routes: [...routes.inboundWebhooks, ...(extra.inboundWebhooks ?? [])] }));
  app.use(SURFACE_PREFIXES.api, apiSurface(container, { contract, routes: [...routes.api, ...(extra.api ?? [])] }));
  return app;
}
