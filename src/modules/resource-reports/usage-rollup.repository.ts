// Maintains the daily rollup (migrations/20261124000400-resource-usage-rollup.ts) from the raw events.
// A refresh rebuilds whole UTC days, from a few days before the last complete day (events of a
// transaction that committed after midnight land on the previous day) through yesterday, then moves
// the watermark to yesterday. Rebuilding a day is delete + insert in one transaction: running it
// twice gives the same rows, and a reader whose events changed (a deleted user's events lose their
// user id) leaves no stale row behind. Rows go in primary key order, so a report's range scan reads
// the heap in order. Today is never rolled up: reports read today's raw events.
import type { Sequelize } from 'sequelize';
import type { Sql } from '../../shared/sql.ts';
import { addDays, utcDay } from './report-range.ts';

/** Days before the watermark rebuilt on every run. */
export const ROLLUP_LOOKBACK_DAYS = 2;
const LOCK_KEY = 482_771_0411; // one refresh at a time across workers

/** A reader of a usage event: a signed-in user, or an anonymous visitor / API key by its visitor key. */
export const READER_KEY_SQL = (alias: string) =>
  `CASE WHEN ${alias}.user_id IS NOT NULL THEN 'u:' || ${alias}.user_id::text ELSE 'v:' || coalesce(${alias}.visitor_key, '?') END`;

export interface RollupResult {
  from: string;
  through: string;
  readerRows: number;
  dayRows: number;
}

export class UsageRollup {
  constructor(private readonly deps: { sequelize: Sequelize; sql: Sql }) {}

  /** The last day the rollup is complete through, or null before the first refresh. */
  async completeThrough(): Promise<string | null> {
    const row = await this.deps.sql.one<{ day: string }>(
      `SELECT complete_through::text AS day FROM resource_usage_rollup_state WHERE id = 1`,
    );
    return row?.day ?? null;
  }

  /** Rebuilds the recent days up to the day before `now` (UTC). Returns null when there is nothing to do. */
  async refresh(now: Date): Promise<RollupResult | null> {
    const { sequelize, sql } = this.deps;
    const through = addDays(utcDay(now), -1);
    return sequelize.transaction(async (transaction) => {
      await sql.query(`SELECT pg_advisory_xact_lock(${LOCK_KEY})`, [], transaction);
      const state = await sql.one<{ day: string }>(
        `SELECT complete_through::text AS day FROM resource_usage_rollup_state WHERE id = 1`,
        [],
        transaction,
      );
      let from: string;
      if (state) {
        const recent = addDays(through, 1 - ROLLUP_LOOKBACK_DAYS);
        const next = addDays(state.day, 1);
        from = next < recent ? next : recent;
      } else {
        const first = await sql.one<{ day: string | null }>(
          `SELECT (min(occurred_at) AT TIME ZONE 'UTC')::date::text AS day FROM resource_usage_events`,
          [],
          transaction,
        );
        from = first?.day && first.day < through ? first.day : through;
      }
      if (from > through) return null;
      const days = [from, through];
      await sql.query(
        `DELETE FROM resource_usage_daily_readers WHERE day BETWEEN $1::date AND $2::date`,
        days,
        transaction,
      );
      await sql.query(`DELETE FROM resource_usage_daily WHERE day BETWEEN $1::date AND $2::date`, days, transaction);
      const readers = await sql.query(
        `INSERT INTO resource_usage_daily_readers (organization_id, resource_id, day, reader_key, user_id, views, downloads, last_at)
         SELECT e.organization_id, e.resource_id, (e.occurred_at AT TIME ZONE 'UTC')::date, ${READER_KEY_SQL('e')}, e.user_id,
                count(*) FILTER (WHERE e.kind = 'view'), count(*) FILTER (WHERE e.kind = 'download'), max(e.occurred_at)
           FROM resource_usage_events e
          WHERE e.occurred_at >= ($1::date)::timestamp AT TIME ZONE 'UTC' AND e.occurred_at < ($2::date + 1)::timestamp AT TIME ZONE 'UTC'
          GROUP BY 1, 2, 3, 4, 5
          ORDER BY 1, 3, 2, 4`,
        days,
        transaction,
      );
      const daily = await sql.query(
        `INSERT INTO resource_usage_daily (organization_id, resource_id, day, views, downloads, unique_users)
         SELECT organization_id, resource_id, day, sum(views), sum(downloads), count(*)
           FROM resource_usage_daily_readers WHERE day BETWEEN $1::date AND $2::date
          GROUP BY 1, 2, 3
          ORDER BY 1, 3, 2`,
        days,
        transaction,
      );
      await sql.query(
        `INSERT INTO resource_usage_rollup_state (id, complete_through, refreshed_at) VALUES (1, $1::date, now())
         ON CONFLICT (id) DO UPDATE SET complete_through = excluded.complete_through, refreshed_at = excluded.refreshed_at`,
        [through],
        transaction,
      );
      return { from, through, readerRows: readers.rowCount, dayRows: daily.rowCount };
    });
  }
}
