// The JSON API's credential (API key, user or impersonation token), shared by the surfaces whose
// callers hold one: the JSON API and uploads.
import type { RequestHandler } from 'express';
import type { Config } from '../../config.ts';
import type { AuthService } from '../../modules/auth/auth.service.ts';
import { Organization } from '../../modules/organizations/organization.model.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../../shared/logger.ts';
import type { RateLimiter } from '../../shared/rate-limiter.ts';
import { authenticate } from '../authenticate.ts';
import { impersonationGuard, type RequestRecorder } from '../impersonation.guard.ts';
import { rateLimit } from '../rate-limit.ts';

/** What every surface reads (its settings and log) and, on the credentialed ones, checks the caller with. */
export interface SurfaceDeps {
  config: Config;
  logger: Logger;
  clock: Clock;
  limiter: RateLimiter;
  auth: AuthService;
  /** Records a request made with an impersonation token (who did what as whom). */
  recordImpersonatedRequest: RequestRecorder;
}

/** Reads the credential when one is sent; the surface decides whether one is required. */
export function apiCredential(deps: SurfaceDeps): RequestHandler {
  return authenticate(deps.auth, (id) => Organization.findByPk(id));
}

/** What follows the credential on those surfaces: read-only impersonation and the hourly limit. */
export function afterCredential(deps: SurfaceDeps): RequestHandler[] {
  return [
    impersonationGuard(deps.recordImpersonatedRequest, deps.clock, deps.logger),
    rateLimit(deps.limiter, deps.config.rateLimits),
  ];
}
