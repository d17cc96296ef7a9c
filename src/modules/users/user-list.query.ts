// Query string of GET /api/admin/users -> filter and sort (the contract has validated the shapes).
import type { Request } from 'express';
import { negotiate } from '../../http/respond.ts';
import type { Role } from '../../shared/access/roles.ts';
import { parseDateRange } from '../../shared/date-range.ts';
import { plusInEmail } from '../../shared/query-plus.ts';
import {
  DEFAULT_USER_SORT,
  USER_SORT_KEYS,
  type SortDirection,
  type UserListFilter,
  type UserSort,
} from './user-query.repository.ts';
import type { UserStatus } from './user.model.ts';

type Query = Record<string, unknown>;

const list = <T>(value: unknown): T[] | undefined =>
  value === undefined ? undefined : ((Array.isArray(value) ? value : String(value).split(',')) as T[]);

export function userListFilter(query: Query): UserListFilter {
  return {
    name: query.name as string | undefined,
    email: query.email === undefined ? undefined : plusInEmail(query.email as string),
    roles: list<Role>(query.role),
    statuses: list<UserStatus>(query.status),
    organizationId: query.organizationId as string | undefined,
    lastLoginAt: parseDateRange(query.lastLoginAt, 'lastLoginAt'),
    createdAt: parseDateRange(query.createdAt, 'createdAt'),
    deleted: query.deleted === true || query.deleted === 'true',
  };
}

export function userSort(query: Query): UserSort {
  const order = (query.order ?? {}) as Partial<Record<(typeof USER_SORT_KEYS)[number], SortDirection>>;
  const key = USER_SORT_KEYS.find((k) => order[k] !== undefined);
  return key ? { key, direction: order[key]! } : DEFAULT_USER_SORT;
}

/** `format=csv`, or an Accept header that prefers CSV to JSON. */
export function wantsCsv(req: Request): boolean {
  if (req.query.format) return req.query.format === 'csv';
  return negotiate(req, ['application/json', 'text/csv']) === 'text/csv';
}
