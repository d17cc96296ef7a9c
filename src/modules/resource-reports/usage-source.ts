// Where every stat and report reads usage from: the rollup for whole days up to its watermark, the raw
// events after it (today, and any day the job has not rolled up yet), in one SELECT of the same shape:
// one row per (resource, day, reader). A report is therefore right without waiting for the job, and
// its cost grows with the rollup's rows, not the events'.
import type { Binds } from '../../shared/sql.ts';
import type { LibraryReader } from '../library/index.ts';
import type { DayRange } from './report-range.ts';
import { addDays } from './report-range.ts';
import { READER_KEY_SQL } from './usage-rollup.repository.ts';

/**
 * Which days of the range come from the rollup and which from the raw events, given the day the
 * rollup is complete through (null: never ran). Bound as literal dates, so the planner estimates
 * both scans from the statistics (a subquery bound made it guess a few hundred rows and pick an
 * index scan in random heap order).
 */
export function splitRange(range: DayRange, through: string | null): { rollup: DayRange | null; raw: DayRange | null } {
  const rollupTo = through === null ? null : through < range.to ? through : range.to;
  const rawFrom = through === null ? range.from : addDays(through, 1) > range.from ? addDays(through, 1) : range.from;
  return {
    rollup: rollupTo !== null && rollupTo >= range.from ? { from: range.from, to: rollupTo } : null,
    raw: rawFrom <= range.to ? { from: rawFrom, to: range.to } : null,
  };
}

/**
 * The `uu` CTE: the reader's usage rows in the range, for resources the reader sees (drafts only for
 * managers), optionally for one resource. Columns: resource_id, day, reader_key, user_id, views,
 * downloads, last_at. MATERIALIZED: reports aggregate it more than once (rows and key metrics).
 */
export function usageCte(
  binds: Binds,
  reader: LibraryReader,
  range: DayRange,
  through: string | null,
  resourceId?: string,
): string {
  const organization = binds.add(reader.organizationId);
  const only = resourceId ? binds.add(resourceId) : null;
  const oneResource = (alias: string) => (only ? ` AND ${alias}.resource_id = ${only}::uuid` : '');
  const { rollup, raw } = splitRange(range, through);
  const parts: string[] = [];
  if (rollup) {
    parts.push(`SELECT d.resource_id, d.day, d.reader_key, d.user_id, d.views, d.downloads, d.last_at
      FROM resource_usage_daily_readers d
     WHERE d.organization_id = ${organization}::uuid${oneResource('d')} AND d.day BETWEEN ${binds.add(rollup.from)}::date AND ${binds.add(rollup.to)}::date`);
  }
  if (raw || !rollup) {
    const days = raw ?? range;
    parts.push(`SELECT e.resource_id, (e.occurred_at AT TIME ZONE 'UTC')::date AS day, ${READER_KEY_SQL('e')} AS reader_key, e.user_id,
           (count(*) FILTER (WHERE e.kind = 'view'))::int AS views, (count(*) FILTER (WHERE e.kind = 'download'))::int AS downloads, max(e.occurred_at) AS last_at
      FROM resource_usage_events e
     WHERE e.organization_id = ${organization}::uuid${oneResource('e')}${raw ? '' : ' AND false'}
       AND e.occurred_at >= ${binds.add(days.from)}::date::timestamp AT TIME ZONE 'UTC'
       AND e.occurred_at < (${binds.add(days.to)}::date + 1)::timestamp AT TIME ZONE 'UTC'
     GROUP BY 1, 2, 3, 4`);
  }
  return `usage_rows AS (
    ${parts.join('\n    UNION ALL\n    ')}),
  uu AS MATERIALIZED (
    SELECT u.* FROM usage_rows u JOIN resources r ON r.id = u.resource_id AND ${reader.seeSql(binds, 'r')})`;
}

/**
 * Per day for one resource (`days` CTE, needs `uu`): views, downloads and that day's
 * readers. Rolled-up days come from resource_usage_daily; days after the watermark from `uu`.
 */
export function resourceDaysCte(binds: Binds, range: DayRange, through: string | null, resourceId: string): string {
  const { rollup, raw } = splitRange(range, through);
  const parts: string[] = [];
  if (rollup) {
    // (a bind value is added only where it is used: PostgreSQL cannot type an unused parameter)
    parts.push(`SELECT day, views::bigint AS views, downloads::bigint AS downloads, unique_users::bigint AS unique_users FROM resource_usage_daily
     WHERE resource_id = ${binds.add(resourceId)}::uuid AND day BETWEEN ${binds.add(rollup.from)}::date AND ${binds.add(rollup.to)}::date`);
  }
  if (raw)
    parts.push(
      `SELECT day, sum(views)::bigint AS views, sum(downloads)::bigint AS downloads, count(*)::bigint AS unique_users FROM uu WHERE day >= ${binds.add(raw.from)}::date GROUP BY day`,
    );
  if (!parts.length)
    parts.push(
      `SELECT NULL::date AS day, 0::bigint AS views, 0::bigint AS downloads, 0::bigint AS unique_users WHERE false`,
    );
  return `calendar AS (SELECT d::date AS day FROM generate_series(${binds.add(range.from)}::date::timestamp, ${binds.add(range.to)}::date::timestamp, interval '1 day') d),
  by_day AS (
    ${parts.join('\n    UNION ALL\n    ')}),
  days AS (
    SELECT c.day, coalesce(b.views, 0) AS views, coalesce(b.downloads, 0) AS downloads, coalesce(b.unique_users, 0) AS unique_users
      FROM calendar c LEFT JOIN by_day b ON b.day = c.day)`;
}

/**
 * The key metrics every report carries, as one JSON object (`summary` CTE): total views, downloads,
 * unique readers over the whole range (exact: distinct readers, not a sum of daily counts) and the
 * top resource (most downloaded, ties by views; null when nothing was downloaded).
 * Distinct counts are written as a GROUP BY / DISTINCT subquery rather than count(DISTINCT ...): the
 * planner hashes those, while count(DISTINCT) always sorts (the benchmark measured the difference).
 */
export const SUMMARY_CTE = `per_resource_totals AS (
    SELECT resource_id, sum(views)::bigint AS views, sum(downloads)::bigint AS downloads FROM uu GROUP BY resource_id),
  summary AS (
    SELECT json_build_object(
      'totalViews', (SELECT coalesce(sum(views), 0) FROM per_resource_totals),
      'totalDownloads', (SELECT coalesce(sum(downloads), 0) FROM per_resource_totals),
      'uniqueUsers', (SELECT count(*) FROM (SELECT DISTINCT reader_key FROM uu) readers),
      'topResource', (SELECT json_build_object('id', t.resource_id, 'name', r.name, 'downloads', t.downloads, 'views', t.views)
                        FROM per_resource_totals t JOIN resources r ON r.id = t.resource_id
                       WHERE t.downloads > 0 ORDER BY t.downloads DESC, t.views DESC, t.resource_id LIMIT 1)) AS value)`;
