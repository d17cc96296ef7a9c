// AdminJS list state (filters.<path>, sortBy, direction) -> the datagrid's filter and sort, shared by
// the portal's users list and its CSV export link, so both show exactly the same rows.
import { ROLE_FILTER_GROUPS } from '../../src/modules/users/user.labels.ts';
import { DEFAULT_USER_SORT, type UserListFilter, type UserSort, type UserSortKey } from '../../src/modules/users/user-query.repository.ts';
import type { UserStatus } from '../../src/modules/users/user.model.ts';
import type { DateRange } from '../../src/shared/date-range.ts';

export type PortalFilters = Record<string, unknown>;

/** AdminJS sort keys are property paths; the organization column is the organizationId reference. */
const SORT_KEYS: Record<string, UserSortKey> = {
  name: 'name',
  email: 'email',
  role: 'role',
  organizationId: 'organization',
  status: 'status',
  lastLoginAt: 'lastLoginAt',
  createdAt: 'createdAt',
};

function range(value: unknown): DateRange | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { from, to } = value as { from?: string; to?: string };
  const parse = (text: string | undefined, endOfDay: boolean) => {
    if (!text) return undefined;
    const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z` : text);
    return Number.isNaN(date.getTime()) ? undefined : date;
  };
  const result = { from: parse(from, false), to: parse(to, true) };
  return result.from || result.to ? result : undefined;
}

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

export function portalUserFilter(filters: PortalFilters): UserListFilter {
  const group = text(filters.roleGroup);
  return {
    name: text(filters.name),
    email: text(filters.email),
    roles: group && ROLE_FILTER_GROUPS[group] ? ROLE_FILTER_GROUPS[group].roles : undefined,
    organizationId: text(filters.organizationId),
    statuses: text(filters.status) ? [text(filters.status) as UserStatus] : undefined,
    lastLoginAt: range(filters.lastLoginAt),
    createdAt: range(filters.createdAt),
  };
}

export function portalUserSort(sort: { sortBy?: string; direction?: string } | undefined): UserSort {
  const key = sort?.sortBy ? SORT_KEYS[sort.sortBy] : undefined;
  return key ? { key, direction: sort?.direction === 'asc' ? 'asc' : 'desc' } : DEFAULT_USER_SORT;
}
