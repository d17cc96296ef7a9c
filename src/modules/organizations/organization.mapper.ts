import type { components } from '../../types/openapi.d.ts';
import type { OrganizationRow } from './organization.repository.ts';

export type OrganizationDto = components['schemas']['Organization'];

export function toOrganizationDto(row: OrganizationRow): OrganizationDto {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    plan: row.plan,
    environment: row.environment,
    status: row.status,
    suspendedAt: row.suspendedAt ? new Date(row.suspendedAt).toISOString() : null,
    counts: { users: row.userCount, members: row.memberCount, apiKeys: row.apiKeyCount },
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

/** What the audit trail keeps of an organization: its settings, not its counts. */
export function toOrganizationSnapshot(
  row: Pick<OrganizationRow, 'name' | 'slug' | 'plan' | 'environment' | 'status'>,
): Record<string, unknown> {
  return { name: row.name, slug: row.slug, plan: row.plan, environment: row.environment, status: row.status };
}
