import type { NextFunction, Request, Response } from 'express';
import type { AuthService } from '../modules/auth/auth.service.ts';
import type { Organization } from '../modules/organizations/organization.model.ts';
import { AppError, errors } from '../shared/errors.ts';
import { isUuid } from '../shared/uuid.ts';
import type { ErrorRenderer } from './surfaces/failure.ts';

export const ORGANIZATION_HEADER = 'guildhall-organization';
// RFC 6750 §2.1: "Bearer" 1*SP b64token; the scheme in any case (RFC 9110 §11.1). Anything after the
// token is refused rather than ignored.
const BEARER_CREDENTIALS = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/** The token of an `Authorization: Bearer` header; undefined for another scheme or a malformed one. */
export const bearerCredentialOf = (header: string | undefined): string | undefined =>
  header === undefined ? undefined : BEARER_CREDENTIALS.exec(header)?.[1];

/**
 * Resolves `Authorization: Bearer ...` to an actor. Routes that need one call actorOf(req); routes
 * without security (login, health) simply find none. A credential that is present but wrong is a
 * 401 at once rather than being treated as anonymous.
 */
export function authenticate(auth: AuthService, findOrganization: (id: string) => Promise<Organization | null>) {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const header = req.get('authorization');
    if (!header) return next();
    const credential = bearerCredentialOf(header);
    if (!credential) throw errors.unauthenticated('Use Authorization: Bearer <API key or token>');
    const { actor, plan } = await auth.authenticate(credential, req.context.requestId);
    req.context.actor = actor;
    req.context.plan = plan;

    // Platform admins cross tenants only explicitly, by naming the organization.
    const chosen = req.get(ORGANIZATION_HEADER);
    if (chosen && actor.role !== 'ROLE_PLATFORM_ADMIN' && chosen.toLowerCase() !== actor.organizationId) {
      // Any other credential acts in its own organization only. Answering for it while the request
      // names another would apply a write to an organization the caller did not mean.
      throw new AppError(
        'forbidden',
        'Guildhall-Organization: only a platform admin chooses the organization; this credential acts in its own',
        { errors: [{ field: 'Guildhall-Organization', message: "names an organization other than the credential's" }] },
      );
    }
    if (chosen && actor.role === 'ROLE_PLATFORM_ADMIN') {
      const organization = isUuid(chosen) ? await findOrganization(chosen) : null;
      // a request parameter naming nothing, like an unknown filter value: 400 on every operation
      // (a 404 would claim the operation's own target is missing, and most operations declare none)
      if (!organization) {
        throw new AppError(
          'validation_failed',
          `Guildhall-Organization names no organization (${chosen.slice(0, 64)})`,
          {
            errors: [{ field: 'Guildhall-Organization', message: 'names no organization' }],
          },
        );
      }
      actor.organizationId = organization.id;
      req.context.plan = organization.plan;
    }
    next();
  };
}

const REALM = 'Bearer realm="Guildhall"';
// a bearer credential that was read and refused (RFC 6750 §3.1); any other 401 (a wrong MFA code) is not about it
const REFUSED_CREDENTIAL = new Set(['unauthenticated', 'token_expired']);

/**
 * Every 401 of a surface that takes these credentials names the scheme (RFC 9110 §15.5.2: a 401 MUST
 * send WWW-Authenticate), with `error="invalid_token"` when a bearer credential was sent and refused.
 * Without one, or with another scheme, the challenge carries no error code (RFC 6750 §3.1).
 */
export function withBearerChallenge(render: ErrorRenderer): ErrorRenderer {
  return (failure, req, res, options) => {
    if (failure.status === 401 && !res.hasHeader('WWW-Authenticate')) {
      const refused = REFUSED_CREDENTIAL.has(failure.code) && /^bearer +\S/i.test(req.get('authorization') ?? '');
      res.setHeader('WWW-Authenticate', refused ? `${REALM}, error="invalid_token"` : REALM);
    }
    render(failure, req, res, options);
  };
}
