// AdminJS list state (filters.<path>, sortBy, direction) -> the datagrid's filter and sort, shared by
// the portal's users list and its CSV export link, so both show exactly the same rows.
import { ROLE_FILTER_GROUPS } from '../../src/modules/users/user.labels.ts';
import {
  DEFAULT_USER_SORT,
  type UserListFilter,
  type UserSort,
  type UserSortKey,
} from '../../src/modules/users/user-query.repository.ts';
import type { UserStatus } from '../../src/modules/users/user.model.ts';
import { type DateRange, dayBound } from '../../src/shared/date-range.ts';
import { isUuid } from './ids.ts';

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

/**
 * A date range is whole UTC days, inclusive, as in the API: the portal's date picker sends the chosen
 * day as midnight (2026-11-23T00:00:00.000Z), so only the day is kept, and "to" runs to its last millisecond.
 */
function range(value: unknown): DateRange | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { from, to } = value as { from?: string; to?: string };
  const parse = (text: string | undefined, endOfDay: boolean) => {
    const day = text?.match(/^(\d{4}-\d{2}-\d{2})/)?.[1];
    if (!day) return undefined;
    const date = new Date(dayBound(day, endOfDay ? 'to' : 'from'));
    return Number.isNaN(date.getTime()) ? undefined : date;
  };
  const result = { from: parse(from, false), to: parse(to, true) };
  // a bound edited into the URL that is no date matches nothing, as an unknown status does
  const unreadable = (sent: string | undefined, read: Date | undefined) => !!text(sent) && !read;
  if (unreadable(from, result.from) || unreadable(to, result.to)) return MATCHES_NOTHING;
  return result.from || result.to ? result : undefined;
}

/** A range no date is in (from after to). */
const MATCHES_NOTHING: DateRange = { from: new Date('9999-12-31T00:00:00Z'), to: new Date('0001-01-01T00:00:00Z') };

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);
/** Multi-value filters arrive as "a,b" (the portal's multi-select keeps them in one query value) or an array. */
const values = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.flatMap(values)
    : (text(value)
        ?.split(',')
        .map((v) => v.trim())
        .filter(Boolean) ?? []);
const STATUSES: UserStatus[] = ['active', 'pending', 'suspended', 'inactive'];
/** An organization id edited into the URL that is no UUID names no organization: the nil UUID, which none has. */
const NO_ORGANIZATION = '00000000-0000-0000-0000-000000000000';
const organizationOf = (value: unknown) => {
  const id = text(value);
  return id === undefined || isUuid(id) ? id : NO_ORGANIZATION;
};

export function portalUserFilter(filters: PortalFilters): UserListFilter {
  // a value that names no group or status (edited into the URL) leaves an empty list: it matches nothing
  const groups = values(filters.roleGroup);
  const roles = groups.flatMap((group) => ROLE_FILTER_GROUPS[group]?.roles ?? []);
  const statusValues = values(filters.status);
  const statuses = statusValues.filter((s): s is UserStatus => STATUSES.includes(s as UserStatus));
  return {
    name: text(filters.name),
    email: text(filters.email),
    search: text(filters.q),
    roles: groups.length ? roles : undefined,
    organizationId: organizationOf(filters.organizationId),
    statuses: statusValues.length ? statuses : undefined,
    deleted: filters.deleted === true || filters.deleted === 'true',
    lastLoginAt: range(filters.lastLoginAt),
    createdAt: range(filters.createdAt),
  };
}

export function portalUserSort(sort: { sortBy?: string; direction?: string } | undefined): UserSort {
  const key = sort?.sortBy ? SORT_KEYS[sort.sortBy] : undefined;
  return key ? { key, direction: sort?.direction === 'asc' ? 'asc' : 'desc' } : DEFAULT_USER_SORT;
}
