import type { components } from '../../types/openapi.d.ts';
import type { Actor } from '../../shared/access/actor.ts';
import type { User } from './user.model.ts';

export type CurrentUserDto = components['schemas']['CurrentUser'];

export function toCurrentUser(user: User, actor?: Actor): CurrentUserDto {
  return {
    id: user.id,
    firstName: user.firstName,
    lastName: user.lastName,
    email: user.email,
    role: user.role,
    organizationId: user.organizationId,
    status: user.status,
    mfaEnabled: user.mfaEnabledAt !== null,
    lastLoginAt: user.lastLoginAt?.toISOString() ?? null,
    createdAt: user.createdAt.toISOString(),
    ...(actor?.impersonation ? { impersonation: { ...actor.impersonation } } : {}),
  };
}
