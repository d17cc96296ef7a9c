// The figures of the portal's dashboard: one aggregate statement each (GROUP BY or count over an
// indexed column), never rows fetched and counted in JavaScript. Platform-wide, for platform admins.
import type { Actor } from '../../src/shared/access/actor.ts';
import { assertCan } from '../../src/shared/access/policy.ts';
import type { Clock } from '../../src/shared/clock.ts';
import { auditNames } from './audit-names.ts';
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

type AuditEntry = DashboardFigures['recentAudit'][number];

/**
 * The newest ten by primary key (an index scan backwards), each actor named as the audit log names it.
 * `audit_log.id`, not `id`: that is the text output column, and ids sorted as text put 9 above 56.
 */
async function recentAuditEntries(sql: Sql): Promise<AuditEntry[]> {
  const entries = await sql.rows<Omit<AuditEntry, 'actorName'>>(
    `SELECT id::text AS id, occurred_at AS "occurredAt", action, actor_type AS "actorType", actor_id AS "actorId",
            target_type AS "targetType", target_id AS "targetId"
       FROM audit_log ORDER BY audit_log.id DESC LIMIT 10`,
  );
  const name = await auditNames(
    sql,
    entries.map((entry) => [entry.actorType, entry.actorId]),
  );
  return entries.map((entry) => ({ ...entry, actorName: name(entry.actorType, entry.actorId) ?? null }));
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
    recentAuditEntries(sql),
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
