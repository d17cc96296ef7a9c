// Tenant isolation in one place: every tenant-owned query goes through tenantWhere(), so a row of
// another organization is indistinguishable from a missing one (404, never 403).
import { AppError } from '../errors.ts';
import type { Actor } from './actor.ts';

export function requireTenant(actor: Actor): string {
  if (actor.organizationId) return actor.organizationId;
  throw new AppError(
    'unprocessable',
    'This operation works inside one organization. Platform admins choose one with the Guildhall-Organization header.',
  );
}

export function tenantWhere<W extends object>(actor: Actor, where: W = {} as W): W & { organizationId: string } {
  return { ...where, organizationId: requireTenant(actor) };
}
