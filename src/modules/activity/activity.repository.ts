// A user's activity: audit entries where the user acted, was acted upon or impersonated someone,
// and the requests made while the user was impersonated (or by the user as impersonator).
import { QueryTypes, type Sequelize } from 'sequelize';
import { offsetOf, type PageRequest } from '../../shared/pagination.ts';
import type { Scope } from '../../shared/access/scope.ts';
import { Binds } from '../../shared/sql.ts';
import type { DateRange } from '../../shared/date-range.ts';

export interface ActivityFilter {
  action?: string;
  occurredAt?: DateRange;
}

export interface ActivityRow {
  id: string;
  occurredAt: Date;
  action: string;
  actorType: 'user' | 'api_key' | 'system';
  actorId: string | null;
  impersonatorId: string | null;
  targetType: string;
  targetId: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  requestId: string | null;
}

function entriesOf(binds: Binds, userId: string): string {
  const asText = binds.add(userId);
  const asUuid = `${binds.add(userId)}::uuid`;
  return `
    SELECT 'audit-' || a.id AS id, a.occurred_at AS "occurredAt", a.action, a.actor_type AS "actorType", a.actor_id AS "actorId",
           a.impersonator_id AS "impersonatorId", a.target_type AS "targetType", a.target_id AS "targetId", a.before, a.after,
           a.request_id AS "requestId"
      FROM audit_log a
     WHERE a.actor_id = ${asText} OR a.impersonator_id = ${asUuid} OR (a.target_type = 'user' AND a.target_id = ${asText})
    UNION ALL
    SELECT 'request-' || r.id, r.occurred_at, 'impersonation.request', 'user', r.target_user_id::text, r.admin_id, 'request', r.path,
           NULL, jsonb_build_object('sessionId', r.session_id, 'method', r.method, 'path', r.path, 'statusCode', r.status_code), r.request_id
      FROM impersonation_requests r
     WHERE r.target_user_id = ${asUuid} OR r.admin_id = ${asUuid}`;
}

export async function findActivity(
  sequelize: Sequelize,
  scope: Pick<Scope, 'sql'>,
  userId: string,
  filter: ActivityFilter,
  page: PageRequest,
): Promise<{ rows: ActivityRow[]; total: number }> {
  const binds = new Binds();
  const entries = entriesOf(binds, userId);
  const where = [scope.sql(binds)];
  if (filter.action) where.push(`action = ${binds.add(filter.action)}`);
  if (filter.occurredAt?.from) where.push(`"occurredAt" >= ${binds.add(filter.occurredAt.from)}`);
  if (filter.occurredAt?.to) where.push(`"occurredAt" <= ${binds.add(filter.occurredAt.to)}`);
  const filtered = `WITH entries AS (${entries}) SELECT * FROM entries WHERE ${where.join(' AND ')}`;
  const countValues = [...binds.values];
  const limit = binds.add(page.itemsPerPage);
  const offset = binds.add(offsetOf(page));
  const [rows, counted] = await Promise.all([
    sequelize.query<ActivityRow>(`${filtered} ORDER BY "occurredAt" DESC, id DESC LIMIT ${limit} OFFSET ${offset}`, {
      bind: binds.values,
      type: QueryTypes.SELECT,
    }),
    sequelize.query<{ total: string }>(`SELECT count(*) AS total FROM (${filtered}) f`, {
      bind: countValues,
      type: QueryTypes.SELECT,
    }),
  ]);
  return { rows, total: Number(counted[0]?.total ?? 0) };
}
