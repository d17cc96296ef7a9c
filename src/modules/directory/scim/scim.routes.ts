// SCIM 2.0 server routes (RFC 7643/7644) on the SCIM surface (/scim/v2), which has already checked the
// directory's bearer token: /Users, /Groups, and the discovery endpoints. Every read and write is
// inside the token's directory; an id of another directory is a 404.
import type { Router } from 'express';
import type { RateLimiter } from '../../../shared/rate-limiter.ts';
import type { Sql } from '../../../shared/sql.ts';
import type { DirectoryProvisioning } from '../directory-provisioning.service.ts';
import type { DirectoryService } from '../directory.service.ts';
import { scimDiscoveryRoutes } from './scim-discovery.ts';
import { scimErrorHandler, scimErrors } from './scim-errors.ts';
import { scimGroupRoutes } from './scim-groups.routes.ts';
import { scimRateLimit } from './scim-rate-limit.ts';
import { ScimRepository } from './scim-repository.ts';
import { scimUserRoutes } from './scim-users.routes.ts';

export interface ScimRouteDeps {
  directories: DirectoryService;
  provisioning: DirectoryProvisioning;
  sql: Sql;
  limiter: RateLimiter;
  /** SCIM requests a directory may make per minute (SCIM_RATE_LIMIT_PER_MINUTE). */
  rateLimitPerMinute: number;
  baseUrl: string;
}

export function scimRoutes(router: Router, deps: ScimRouteDeps): void {
  router.use(scimRateLimit(deps.limiter, deps.rateLimitPerMinute));
  const context = {
    directories: deps.directories,
    provisioning: deps.provisioning,
    repository: new ScimRepository(deps.sql),
    baseUrl: deps.baseUrl,
  };
  scimUserRoutes(router, context);
  scimGroupRoutes(router, context);
  scimDiscoveryRoutes(router, deps.baseUrl);
  // RFC 7644 §3.11 (/Me) and §3.7 (bulk, which ServiceProviderConfig says is not supported): 501
  router.all(['/Me', '/Me/*rest', '/Bulk'], (req) => {
    throw scimErrors.notImplemented(`${req.path.startsWith('/Me') ? '/Me' : '/Bulk'} is not supported by this server`);
  });
  router.use(scimErrorHandler);
}
