// The users datagrid in SQL: one WHERE/ORDER BY builder shared by the paged list (API and Admin
// Portal), the CSV export and the benchmark's COPY baseline, so all three always agree.
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { Role } from '../../shared/access/roles.ts';
import type { Scope } from '../../shared/access/scope.ts';
import type { DateRange } from '../../shared/date-range.ts';
import { offsetOf, type PageRequest } from '../../shared/pagination.ts';
import { Binds, containing } from '../../shared/sql.ts';
import type { UserStatus } from './user.model.ts';

export const USER_SORT_KEYS = ['name', 'email', 'role', 'organization', 'status', 'lastLoginAt', 'createdAt'] as const;
export type UserSortKey = (typeof USER_SORT_KEYS)[number];
export type SortDirection = 'asc' | 'desc';

export interface UserListFilter {
  /** Partial, case-insensitive match on "first last". */
  name?: string;
  /** Partial, case-insensitive match. */
  email?: string;
  /** Quick search (Admin Portal): partial, case-insensitive match on the name or the e-mail. */
  search?: string;
  roles?: Role[];
  organizationId?: string;
  statuses?: UserStatus[];
  lastLoginAt?: DateRange;
  createdAt?: DateRange;
  /** true: only soft-deleted users (to review or purge them); otherwise only live ones. */
  deleted?: boolean;
}

export interface UserSort {
  key: UserSortKey;
  direction: SortDirection;
}

export const DEFAULT_USER_SORT: UserSort = { key: 'createdAt', direction: 'desc' };

/** One datagrid row, as selected (column names are the SQL aliases). */
export interface UserRow {
  id: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  role: Role;
  status: UserStatus;
  organizationId: string | null;
  organizationName: string | null;
  mfaEnabledAt: Date | null;
  lastLoginAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

const SELECT = `SELECT u.id, u.first_name AS "firstName", u.last_name AS "lastName", u.email, u.phone, u.role, u.status,
       u.organization_id AS "organizationId", o.name AS "organizationName", u.mfa_enabled_at AS "mfaEnabledAt",
       u.last_login_at AS "lastLoginAt", u.created_at AS "createdAt", u.updated_at AS "updatedAt", u.deleted_at AS "deletedAt"
  FROM users u LEFT JOIN organizations o ON o.id = u.organization_id`;

const ORDER: Record<UserSortKey, (dir: string) => string> = {
  name: (dir) => `lower(u.first_name) ${dir}, lower(u.last_name) ${dir}`,
  email: (dir) => `lower(u.email) ${dir}`,
  role: (dir) => `u.role ${dir}`,
  organization: (dir) => `lower(o.name) ${dir} NULLS LAST`,
  status: (dir) => `u.status ${dir}`,
  lastLoginAt: (dir) => `u.last_login_at ${dir} NULLS LAST`,
  createdAt: (dir) => `u.created_at ${dir}`,
};

/** The rows the actor may read (the scope of kind `user`), as every query of the datagrid starts. */
export type UserScope = Pick<Scope, 'sql'>;

export function whereOf(scope: UserScope, filter: UserListFilter, binds: Binds): string {
  const clauses = [scope.sql(binds, 'u'), filter.deleted ? 'u.deleted_at IS NOT NULL' : 'u.deleted_at IS NULL'];
  if (filter.name) clauses.push(`(u.first_name || ' ' || u.last_name) ILIKE ${binds.add(containing(filter.name))}`);
  if (filter.email) clauses.push(`u.email ILIKE ${binds.add(containing(filter.email))}`);
  if (filter.search) {
    const pattern = binds.add(containing(filter.search));
    clauses.push(`((u.first_name || ' ' || u.last_name) ILIKE ${pattern} OR u.email ILIKE ${pattern})`);
  }
  // an empty list is a filter that names nothing and matches nothing
  if (filter.roles) clauses.push(`u.role = ANY(${binds.add(filter.roles)}::text[])`);
  if (filter.statuses) clauses.push(`u.status = ANY(${binds.add(filter.statuses)}::text[])`);
  if (filter.organizationId) clauses.push(`u.organization_id = ${binds.add(filter.organizationId)}`);
  for (const [column, range] of [
    ['u.last_login_at', filter.lastLoginAt],
    ['u.created_at', filter.createdAt],
  ] as const) {
    if (range?.from) clauses.push(`${column} >= ${binds.add(range.from)}`);
    if (range?.to) clauses.push(`${column} <= ${binds.add(range.to)}`);
  }
  return clauses.join(' AND ');
}

export function orderOf(sort: UserSort): string {
  return `${ORDER[sort.key](sort.direction === 'asc' ? 'ASC' : 'DESC')}, u.id ASC`;
}

/** The full, unpaged query: what the CSV export streams (and the benchmark COPYs). */
export function listQuery(
  scope: UserScope,
  filter: UserListFilter,
  sort: UserSort,
): { text: string; values: unknown[] } {
  const binds = new Binds();
  const text = `${SELECT} WHERE ${whereOf(scope, filter, binds)} ORDER BY ${orderOf(sort)}`;
  return { text, values: binds.values };
}

/** The page and count queries of the datagrid (also run by the benchmark's raw baseline). */
export function findUserPageSql(scope: UserScope, filter: UserListFilter, sort: UserSort, page: PageRequest) {
  const binds = new Binds();
  const where = whereOf(scope, filter, binds);
  const count = { text: `SELECT count(*) AS total FROM users u WHERE ${where}`, values: [...binds.values] };
  const limit = binds.add(page.itemsPerPage);
  const offset = binds.add(offsetOf(page));
  const rows = {
    text: `${SELECT} WHERE ${where} ORDER BY ${orderOf(sort)} LIMIT ${limit} OFFSET ${offset}`,
    values: binds.values,
  };
  return { rows, count };
}

export async function findUserPage(
  sequelize: Sequelize,
  scope: UserScope,
  filter: UserListFilter,
  sort: UserSort,
  page: PageRequest,
): Promise<{ rows: UserRow[]; total: number }> {
  const { rows, count } = findUserPageSql(scope, filter, sort, page);
  const [found, counted] = await Promise.all([
    sequelize.query<UserRow>(rows.text, { bind: rows.values, type: QueryTypes.SELECT }),
    sequelize.query<{ total: string }>(count.text, { bind: count.values, type: QueryTypes.SELECT }),
  ]);
  return { rows: found, total: Number(counted[0]?.total ?? 0) };
}

export async function findUserRow(
  sequelize: Sequelize,
  id: string,
  options: { includeDeleted?: boolean; transaction?: Transaction } = {},
): Promise<UserRow | null> {
  const deleted = options.includeDeleted ? '' : ' AND u.deleted_at IS NULL';
  const rows = await sequelize.query<UserRow>(`${SELECT} WHERE u.id = $1${deleted}`, {
    bind: [id],
    type: QueryTypes.SELECT,
    transaction: options.transaction,
  });
  return rows[0] ?? null;
}
