// Organizations with the counts a platform admin manages them by. One statement per page: the
// counts are correlated sub-selects over indexed organization_id columns, not a scan of every table.
import type { Plan } from '../../config.ts';
import type { AppEnv } from '../../config.ts';
import { offsetOf, type PageRequest } from '../../shared/pagination.ts';
import { Binds, containing, type Sql } from '../../shared/sql.ts';
import type { OrganizationStatus } from './organization.model.ts';

export interface OrganizationFilter {
  /** Partial, case-insensitive match on name or slug. */
  q?: string;
  statuses?: OrganizationStatus[];
  plans?: Plan[];
  environment?: AppEnv;
}

export interface OrganizationRow {
  id: string;
  name: string;
  slug: string;
  plan: Plan;
  environment: AppEnv;
  status: OrganizationStatus;
  suspendedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  userCount: number;
  memberCount: number;
  apiKeyCount: number;
}

const SELECT = `SELECT o.id, o.name, o.slug, o.plan, o.environment, o.status, o.suspended_at AS "suspendedAt",
       o.created_at AS "createdAt", o.updated_at AS "updatedAt",
       (SELECT count(*)::int FROM users u WHERE u.organization_id = o.id AND u.deleted_at IS NULL) AS "userCount",
       (SELECT count(*)::int FROM members m WHERE m.organization_id = o.id) AS "memberCount",
       (SELECT count(*)::int FROM api_keys k WHERE k.organization_id = o.id AND k.revoked_at IS NULL) AS "apiKeyCount"
  FROM organizations o`;

function whereOf(filter: OrganizationFilter, binds: Binds): string {
  const clauses: string[] = [];
  if (filter.q) {
    const pattern = binds.add(containing(filter.q.toLowerCase()));
    clauses.push(`(lower(o.name) LIKE ${pattern} OR o.slug LIKE ${pattern})`);
  }
  if (filter.statuses?.length) clauses.push(`o.status = ANY(${binds.add(filter.statuses)}::text[])`);
  if (filter.plans?.length) clauses.push(`o.plan = ANY(${binds.add(filter.plans)}::text[])`);
  if (filter.environment) clauses.push(`o.environment = ${binds.add(filter.environment)}`);
  return clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
}

export async function findOrganizationPage(
  sql: Sql,
  filter: OrganizationFilter,
  page: PageRequest,
): Promise<{ rows: OrganizationRow[]; total: number }> {
  const binds = new Binds();
  const where = whereOf(filter, binds);
  const countValues = [...binds.values];
  const limit = binds.add(page.itemsPerPage);
  const offset = binds.add(offsetOf(page));
  const [rows, count] = await Promise.all([
    sql.rows<OrganizationRow>(
      `${SELECT} ${where} ORDER BY o.created_at DESC, o.id DESC LIMIT ${limit} OFFSET ${offset}`,
      binds.values,
    ),
    sql.one<{ total: number }>(`SELECT count(*)::int AS total FROM organizations o ${where}`, countValues),
  ]);
  return { rows, total: count?.total ?? 0 };
}

export function findOrganizationRow(sql: Sql, id: string): Promise<OrganizationRow | undefined> {
  return sql.one<OrganizationRow>(`${SELECT} WHERE o.id = $1`, [id]);
}
