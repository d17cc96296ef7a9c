// The JSON API's credential (API key, user or impersonation token), shared by the surfaces whose
// callers hold one: the JSON API and uploads.
import type { RequestHandler } from 'express';
import type { Container } from '../../container.ts';
import { Organization } from '../../modules/organizations/organization.model.ts';
import { authenticate } from '../authenticate.ts';
import { impersonationGuard } from '../impersonation.guard.ts';
import { rateLimit } from '../rate-limit.ts';

/** Reads the credential when one is sent; the surface decides whether one is required. */
export function apiCredential(container: Container): RequestHandler {
  return authenticate(container.services.auth, (id) => Organization.findByPk(id));
}

/** What follows the credential on those surfaces: read-only impersonation and the hourly limit. */
export function afterCredential(container: Container): RequestHandler[] {
  const { config, logger, services } = container;
  return [
    impersonationGuard((entry) => services.impersonation.recordRequest(entry), container.clock, logger),
    rateLimit(container.limiter, config.rateLimits),
  ];
}
