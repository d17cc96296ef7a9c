import type { NextFunction, Request, Response } from 'express';
import type { AuthService } from '../modules/auth/auth.service.ts';
import type { Organization } from '../modules/organizations/organization.model.ts';
import { AppError, errors } from '../shared/errors.ts';
import { isUuid } from '../shared/uuid.ts';

export const ORGANIZATION_HEADER = 'guildhall-organization';

/**
 * Resolves `Authorization: Bearer ...` to an actor. Routes that need one call actorOf(req); routes
 * without security (login, health) simply find none. A credential that is present but wrong is a
 * 401 at once rather than being treated as anonymous.
 */
export function authenticate(auth: AuthService, findOrganization: (id: string) => Promise<Organization | null>) {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const header = req.get('authorization');
    if (!header) return next();
    const [scheme, credential] = header.split(' ');
    if (scheme?.toLowerCase() !== 'bearer' || !credential)
      throw errors.unauthenticated('Use Authorization: Bearer <API key or token>');
    const { actor, plan } = await auth.authenticate(credential.trim(), req.context.requestId);
    req.context.actor = actor;
    req.context.plan = plan;

    // Platform admins cross tenants only explicitly, by naming the organization.
    const chosen = req.get(ORGANIZATION_HEADER);
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
