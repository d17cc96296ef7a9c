import type { components } from '../../types/openapi.d.ts';

export type EntitlementDto = components['schemas']['ResourceEntitlement'];

export interface EntitlementRow {
  id: string;
  resourceId: string;
  memberId: string;
  reference: string | null;
  grantedAt: Date;
  revokedAt: Date | null;
  createdAt: Date;
}

export function toEntitlementDto(row: EntitlementRow): EntitlementDto {
  return {
    id: row.id,
    resourceId: row.resourceId,
    memberId: row.memberId,
    reference: row.reference,
    active: row.revokedAt === null,
    grantedAt: row.grantedAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}
