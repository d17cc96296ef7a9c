// Tenant isolation in one place: every tenant-owned query goes through tenantWhere(), so a row of
// another organization is indistinguishable from a missing one (404, never 403).
import { AppError } from '../errors.ts';
import type { Actor } from './actor.ts';

/** The header that picks the tenant of a platform admin's request (http/authenticate.ts reads it). */
export const ORGANIZATION_HEADER = 'Guildhall-Organization';

export function requireTenant(actor: Actor): string {
  if (actor.organizationId) return actor.organizationId;
  // Only platform admins belong to no organization: tell them how to pick one, in the detail a person
  // reads and in `errors` a client reads (as the 400 for a header naming no organization does).
  throw new AppError(
    'unprocessable',
    `This operation works inside one organization: platform admins choose it with the ${ORGANIZATION_HEADER} header ` +
      `(${ORGANIZATION_HEADER}: <organization id>).`,
    { errors: [{ field: ORGANIZATION_HEADER, message: 'is required: it names the organization to act in' }] },
  );
}

export function tenantWhere<W extends object>(actor: Actor, where: W = {} as W): W & { organizationId: string } {
  return { ...where, organizationId: requireTenant(actor) };
}
