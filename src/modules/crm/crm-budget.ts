// HubSpot's burst limit is a ROLLING 10-second window per app and portal. The platform's rate limiter
// counts fixed windows, which would let up to twice the budget through across a window boundary, so
// the CRM keeps its own log of calls per portal: a call is taken under a transaction-scoped advisory
// lock on the portal (every instance and worker shares it), counted over the last 10 seconds, and
// recorded in the same transaction. Exact across instances, and the daily use is counted beside it.
import type { Sequelize } from 'sequelize';
import type { Sql } from '../../shared/sql.ts';

export const BURST_WINDOW_SECONDS = 10;
/**
 * HubSpot counts a call when it ARRIVES, somewhere between our grant and its answer. So a call is logged
 * at its grant and logged again at its answer (`answered`): the window counts from the answer, and a call
 * granted later can never share HubSpot's window with it, however the latencies differ (counting from the
 * grant alone, a busy machine saw a 429). The margin covers what remains: a call in flight longer than the
 * window itself, and clock resolution. It costs under 3% of the budget.
 */
const ARRIVAL_MARGIN_SECONDS = 0.25;

export interface BudgetLimits {
  burst: number;
  daily: number;
}

export type Grant =
  | { granted: true /** the call has its answer: the window counts from now */; answered(): Promise<void> }
  | { granted: false; waitMs: number; daily: boolean };

export class CrmBudget {
  constructor(private readonly deps: { sequelize: Sequelize; sql: Sql; limits: BudgetLimits }) {}

  /** Takes one call to `hubId`'s portal, or says how long until one is free. */
  async take(organizationId: string, hubId: string): Promise<Grant> {
    const { sql, limits } = this.deps;
    return this.deps.sequelize.transaction(async (transaction) => {
      await sql.query(`SELECT pg_advisory_xact_lock(hashtext('crm-budget:' || $1))`, [hubId], transaction);
      // the database's clock, read after the lock: one clock for every instance, and HubSpot's is real time
      const state = await sql.one<{ daily_used: number; calls: number; wait_ms: number; midnight_ms: number }>(
        `SELECT COALESCE((SELECT daily_used FROM crm_connections
                           WHERE organization_id = $1
                             AND daily_used_on = (clock_timestamp() AT TIME ZONE 'UTC')::date), 0) AS daily_used,
                count(*)::int AS calls,
                COALESCE(ceil(extract(epoch FROM (min(called_at) + make_interval(secs => $3) - clock_timestamp()))
                              * 1000), 0)::int AS wait_ms,
                ceil(extract(epoch FROM (date_trunc('day', clock_timestamp() AT TIME ZONE 'UTC') + interval '1 day'
                                          - (clock_timestamp() AT TIME ZONE 'UTC'))) * 1000)::int AS midnight_ms
           FROM crm_api_calls WHERE hub_id = $2 AND called_at > clock_timestamp() - make_interval(secs => $3)`,
        [organizationId, hubId, BURST_WINDOW_SECONDS + ARRIVAL_MARGIN_SECONDS],
        transaction,
      );
      if (!state) return { granted: false, waitMs: 1000, daily: false };
      if (state.daily_used >= limits.daily) return { granted: false, waitMs: state.midnight_ms, daily: true };
      if (state.calls >= limits.burst) return { granted: false, waitMs: Math.max(1, state.wait_ms), daily: false };
      const call = await sql.one<{ at: string }>(
        'INSERT INTO crm_api_calls (hub_id, called_at) VALUES ($1, clock_timestamp()) RETURNING called_at::text AS at',
        [hubId],
        transaction,
      );
      await sql.query(
        `UPDATE crm_connections
            SET daily_used = CASE WHEN daily_used_on = (clock_timestamp() AT TIME ZONE 'UTC')::date
                                  THEN daily_used + 1 ELSE 1 END,
                daily_used_on = (clock_timestamp() AT TIME ZONE 'UTC')::date
          WHERE organization_id = $1`,
        [organizationId],
        transaction,
      );
      const answered = async () => {
        await sql.query(
          `UPDATE crm_api_calls SET called_at = greatest(called_at, clock_timestamp())
            WHERE hub_id = $1 AND called_at = $2::timestamptz`,
          [hubId, call?.at],
        );
      };
      return { granted: true as const, answered };
    });
  }

  /** Runs `work` as one call to the portal once `grant` allowed it, its window counted from its answer. */
  static async answered<T>(grant: Extract<Grant, { granted: true }>, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } finally {
      // if the database cannot record the answer, the window counts from the grant, as it did before
      await grant.answered().catch(() => undefined);
    }
  }

  /** Forgets calls older than any window needs (the purge job). */
  async purge(): Promise<void> {
    await this.deps.sql.query(`DELETE FROM crm_api_calls WHERE called_at < clock_timestamp() - interval '1 minute'`);
  }
}
