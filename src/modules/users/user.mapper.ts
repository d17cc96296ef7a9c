import type { components } from '../../types/openapi.d.ts';
import type { Actor } from '../../shared/access/actor.ts';
import type { User } from './user.model.ts';
import type { UserRow } from './user-query.repository.ts';

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

export type AdminUserDto = components['schemas']['AdminUser'];
export type AssociatedDataDto = components['schemas']['AssociatedData'];

const iso = (date: Date | null): string | null => (date ? new Date(date).toISOString() : null);

/** The datagrid row (or user details) as administrators see it. */
export function toAdminUser(row: UserRow, associatedData?: AssociatedDataDto[]): AdminUserDto {
  return {
    id: row.id,
    name: `${row.firstName} ${row.lastName}`,
    firstName: row.firstName,
    lastName: row.lastName,
    email: row.email,
    phone: row.phone,
    role: row.role,
    organization: row.organizationId ? { id: row.organizationId, name: row.organizationName ?? '' } : null,
    status: row.status,
    mfaEnabled: row.mfaEnabledAt !== null,
    lastLoginAt: iso(row.lastLoginAt),
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
    deletedAt: iso(row.deletedAt),
    ...(associatedData ? { associatedData } : {}),
  };
}

/** What the audit trail keeps of a user: never secrets (password hash, MFA seed). */
export function toAuditSnapshot(user: User): Record<string, unknown> {
  return {
    firstName: user.firstName,
    lastName: user.lastName,
    email: user.email,
    phone: user.phone,
    role: user.role,
    status: user.status,
    organizationId: user.organizationId,
  };
}
