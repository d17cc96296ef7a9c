// The figures of the portal's dashboard: one aggregate statement each (GROUP BY or count over an
// indexed column), never rows fetched and counted in JavaScript. Platform-wide, for platform admins.
import type { Actor } from '../../src/shared/access/actor.ts';
import { assertCan } from '../../src/shared/access/policy.ts';
import type { Clock } from '../../src/shared/clock.ts';
import type { Sql } from '../../src/shared/sql.ts';

export interface DashboardFigures {
  usersByStatus: Record<string, number>;
  usersByRole: Record<string, number>;
  newUsers: { last7Days: number; last30Days: number };
  organizationsByPlan: Record<string, number>;
  openImpersonations: number;
  recentAudit: Array<{
    id: string;
    occurredAt: string;
    action: string;
    actorType: string;
    actorId: string | null;
    actorName: string | null;
    targetType: string;
    targetId: string | null;
  }>;
  failingJobs: number;
  failingWebhookDeliveries: number;
  unsentOutbox: number;
}

const DAY = 24 * 60 * 60 * 1000;

async function grouped(sql: Sql, text: string, values: unknown[] = []): Promise<Record<string, number>> {
  const rows = await sql.rows<{ key: string; n: number }>(text, values);
  return Object.fromEntries(rows.map((row) => [row.key, row.n]));
}

async function counted(sql: Sql, text: string, values: unknown[] = []): Promise<number> {
  return (await sql.one<{ n: number }>(text, values))?.n ?? 0;
}

export async function dashboardFigures(deps: { sql: Sql; clock: Clock }, actor: Actor): Promise<DashboardFigures> {
  assertCan(actor, 'platform:admin');
  const { sql } = deps;
  const now = deps.clock.now();
  const live = 'FROM users WHERE deleted_at IS NULL';
  const [
    usersByStatus,
    usersByRole,
    newUsers,
    organizationsByPlan,
    openImpersonations,
    recentAudit,
    failingJobs,
    failingWebhookDeliveries,
    unsentOutbox,
  ] = await Promise.all([
    grouped(sql, `SELECT status AS key, count(*)::int AS n ${live} GROUP BY status`),
    grouped(sql, `SELECT role AS key, count(*)::int AS n ${live} GROUP BY role`),
    sql.one<{ last7Days: number; last30Days: number }>(
      `SELECT count(*) FILTER (WHERE created_at >= $1)::int AS "last7Days", count(*)::int AS "last30Days" ${live} AND created_at >= $2`,
      [new Date(now.getTime() - 7 * DAY), new Date(now.getTime() - 30 * DAY)],
    ),
    grouped(sql, 'SELECT plan AS key, count(*)::int AS n FROM organizations GROUP BY plan'),
    counted(sql, 'SELECT count(*)::int AS n FROM impersonation_sessions WHERE ended_at IS NULL AND expires_at > $1', [
      now,
    ]),
    sql.rows<DashboardFigures['recentAudit'][number]>(
      // the newest ten by primary key (an index scan backwards), then each actor's name by primary key
      `SELECT a.id::text AS id, a.occurred_at AS "occurredAt", a.action, a.actor_type AS "actorType",
              a.actor_id AS "actorId", coalesce(u.first_name || ' ' || u.last_name, k.name || ' (API key)') AS "actorName",
              a.target_type AS "targetType", a.target_id AS "targetId"
         FROM (SELECT *, CASE WHEN actor_id ~* '^[0-9a-f-]{36}$' THEN actor_id::uuid END AS actor_uuid
                 FROM audit_log ORDER BY id DESC LIMIT 10) a
         LEFT JOIN LATERAL (SELECT first_name, last_name FROM users
                             WHERE id = CASE WHEN a.actor_type = 'user' THEN a.actor_uuid END) u ON true
         LEFT JOIN LATERAL (SELECT name FROM api_keys
                             WHERE id = CASE WHEN a.actor_type = 'api_key' THEN a.actor_uuid END) k ON true
        ORDER BY a.id DESC`,
    ),
    counted(sql, "SELECT count(*)::int AS n FROM pgboss.job WHERE state IN ('failed', 'retry')"),
    counted(
      sql,
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'failed' OR (status = 'pending' AND attempt_count > 0)",
    ),
    counted(sql, "SELECT count(*)::int AS n FROM mail_outbox WHERE status <> 'sent'"),
  ]);
  return {
    usersByStatus,
    usersByRole,
    newUsers: newUsers ?? { last7Days: 0, last30Days: 0 },
    organizationsByPlan,
    openImpersonations,
    recentAudit: recentAudit.map((entry) => ({ ...entry, occurredAt: new Date(entry.occurredAt).toISOString() })),
    failingJobs,
    failingWebhookDeliveries,
    unsentOutbox,
  };
}
