// Where every stat and report reads usage from: the rollup for whole days up to its watermark, the raw
// events after it (today, and any day the job has not rolled up yet), in one SELECT of the same shape:
// one row per (resource, day, reader). A report is therefore right without waiting for the job, and
// its cost grows with the rollup's rows, not the events'.
import type { Binds } from '../../shared/sql.ts';
import type { LibraryReader } from '../library/resource.access.ts';
import type { DayRange } from './report-range.ts';
import { READER_KEY_SQL } from './usage-rollup.repository.ts';

const WATERMARK = `(SELECT coalesce(max(complete_through), '-infinity'::date) FROM resource_usage_rollup_state)`;

/**
 * The `uu` CTE: the reader's usage rows in the range, for resources the reader sees (drafts only for
 * managers), optionally for one resource. Columns: resource_id, day, reader_key, user_id, views,
 * downloads, last_at. MATERIALIZED: reports aggregate it more than once (rows and key metrics).
 */
export function usageCte(binds: Binds, reader: LibraryReader, range: DayRange, resourceId?: string): string {
  const organization = binds.add(reader.organizationId);
  const from = binds.add(range.from);
  const to = binds.add(range.to);
  const only = resourceId ? binds.add(resourceId) : null;
  const oneResource = (alias: string) => (only ? ` AND ${alias}.resource_id = ${only}::uuid` : '');
  return `watermark AS MATERIALIZED (SELECT ${WATERMARK} AS through),
  usage_rows AS (
    SELECT d.resource_id, d.day, d.reader_key, d.user_id, d.views, d.downloads, d.last_at
      FROM resource_usage_daily_readers d
     WHERE d.organization_id = ${organization}::uuid${oneResource('d')}
       AND d.day >= ${from}::date AND d.day <= least(${to}::date, (SELECT through FROM watermark))
    UNION ALL
    SELECT e.resource_id, (e.occurred_at AT TIME ZONE 'UTC')::date, ${READER_KEY_SQL('e')}, e.user_id,
           (count(*) FILTER (WHERE e.kind = 'view'))::int, (count(*) FILTER (WHERE e.kind = 'download'))::int, max(e.occurred_at)
      FROM resource_usage_events e
     WHERE e.organization_id = ${organization}::uuid${oneResource('e')}
       AND e.occurred_at >= (greatest(${from}::date, (SELECT through FROM watermark) + 1))::timestamp AT TIME ZONE 'UTC'
       AND e.occurred_at < (${to}::date + 1)::timestamp AT TIME ZONE 'UTC'
     GROUP BY 1, 2, 3, 4),
  uu AS MATERIALIZED (
    SELECT u.* FROM usage_rows u JOIN resources r ON r.id = u.resource_id AND ${reader.seeSql(binds, 'r')})`;
}

/**
 * Per day for one resource (`days` CTE, needs `uu` and `watermark`): views, downloads and that day's
 * readers. Rolled-up days come from resource_usage_daily; days after the watermark from `uu`.
 */
export function resourceDaysCte(binds: Binds, range: DayRange, resourceId: string): string {
  const from = binds.add(range.from);
  const to = binds.add(range.to);
  const id = binds.add(resourceId);
  return `calendar AS (SELECT d::date AS day FROM generate_series(${from}::date::timestamp, ${to}::date::timestamp, interval '1 day') d),
  by_day AS (
    SELECT day, views::bigint, downloads::bigint, unique_users::bigint FROM resource_usage_daily
     WHERE resource_id = ${id}::uuid AND day >= ${from}::date AND day <= least(${to}::date, (SELECT through FROM watermark))
    UNION ALL
    SELECT day, sum(views)::bigint, sum(downloads)::bigint, count(*)::bigint FROM uu WHERE day > (SELECT through FROM watermark) GROUP BY day),
  days AS (
    SELECT c.day, coalesce(b.views, 0) AS views, coalesce(b.downloads, 0) AS downloads, coalesce(b.unique_users, 0) AS unique_users
      FROM calendar c LEFT JOIN by_day b ON b.day = c.day)`;
}

/**
 * The key metrics every report carries, as one JSON object (`summary` CTE): total views, downloads,
 * unique readers over the whole range (exact: distinct readers, not a sum of daily counts) and the
 * top resource (most downloaded, ties by views; null when nothing was downloaded).
 */
export const SUMMARY_CTE = `per_resource_totals AS (
    SELECT resource_id, sum(views)::bigint AS views, sum(downloads)::bigint AS downloads FROM uu GROUP BY resource_id),
  summary AS (
    SELECT json_build_object(
      'totalViews', (SELECT coalesce(sum(views), 0) FROM per_resource_totals),
      'totalDownloads', (SELECT coalesce(sum(downloads), 0) FROM per_resource_totals),
      'uniqueUsers', (SELECT count(DISTINCT reader_key) FROM uu),
      'topResource', (SELECT json_build_object('id', t.resource_id, 'name', r.name, 'downloads', t.downloads, 'views', t.views)
                        FROM per_resource_totals t JOIN resources r ON r.id = t.resource_id
                       WHERE t.downloads > 0 ORDER BY t.downloads DESC, t.views DESC, t.resource_id LIMIT 1)) AS value)`;
