// The report queries. Each report is a `rows` SELECT over the `uu` usage CTE (usage-source.ts); the
// JSON answer wraps it with the key metrics, the row count and one page, in one statement (one scan
// of the usage rows); the export streams the same SELECT, every row, through a cursor.
import type { Sequelize } from 'sequelize';
import type { PageRequest } from '../../shared/pagination.ts';
import { offsetOf } from '../../shared/pagination.ts';
import { Binds, type Sql } from '../../shared/sql.ts';
import type { LibraryReader } from '../library/index.ts';
import type { DayRange } from './report-range.ts';
import { resourceDaysCte, SUMMARY_CTE, usageCte } from './usage-source.ts';

export const REPORT_KINDS = ['usage', 'categories', 'members', 'trends'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
export const TREND_INTERVALS = ['day', 'week', 'month'] as const;
export type TrendInterval = (typeof TREND_INTERVALS)[number];

export interface ReportOptions {
  interval?: TrendInterval;
}

/** Key metrics, as the summary CTE builds them. */
export interface ReportSummaryRow {
  totalViews: number;
  totalDownloads: number;
  uniqueUsers: number;
  topResource: { id: string; name: string; downloads: number; views: number } | null;
}

export interface UsageRow {
  resource_id: string;
  name: string;
  type: string;
  format: string;
  access_level: string;
  status: string;
  views: number;
  downloads: number;
  unique_users: number;
  last_at: string;
}
export interface CategoryRow {
  category_id: string;
  name: string;
  archived: boolean;
  resource_count: number;
  views: number;
  downloads: number;
  unique_users: number;
  last_at: string | null;
}
export interface MemberRow {
  user_id: string;
  name: string;
  email: string;
  views: number;
  downloads: number;
  resources_used: number;
  last_at: string;
}
export interface TrendRow {
  period_start: string;
  period_end: string;
  views: number;
  downloads: number;
  unique_users: number;
}
export interface ReportRows {
  usage: UsageRow;
  categories: CategoryRow;
  members: MemberRow;
  trends: TrendRow;
}

interface ReportSql {
  /** CTEs after `uu` (without a leading comma), ending with `rows`. */
  ctes: string;
  order: string;
  /** Output columns of `rows`, in export order. */
  columns: readonly string[];
}

const ISO_UTC = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', ${ISO_UTC})`;

function reportSql(
  kind: ReportKind,
  binds: Binds,
  reader: LibraryReader,
  range: DayRange,
  options: ReportOptions,
): ReportSql {
  switch (kind) {
    case 'usage':
      return {
        ctes: `rows AS (
          SELECT p.resource_id, r.name, r.type, r.format, r.access_level, r.status, p.views, p.downloads, p.unique_users, ${iso('p.last_at')} AS last_at
            FROM (SELECT resource_id, sum(views)::bigint AS views, sum(downloads)::bigint AS downloads,
                         count(*)::bigint AS unique_users, max(last_at) AS last_at
                    FROM (SELECT resource_id, reader_key, sum(views) AS views, sum(downloads) AS downloads, max(last_at) AS last_at
                            FROM uu GROUP BY resource_id, reader_key) per_reader
                   GROUP BY resource_id) p
            JOIN resources r ON r.id = p.resource_id)`,
        order: 'downloads DESC, views DESC, name, resource_id',
        columns: [
          'resource_id',
          'name',
          'type',
          'format',
          'access_level',
          'status',
          'views',
          'downloads',
          'unique_users',
          'last_at',
        ],
      };
    case 'categories':
      return {
        ctes: `per_category AS (
          SELECT category_id, sum(views)::bigint AS views, sum(downloads)::bigint AS downloads, count(*)::bigint AS unique_users, max(last_at) AS last_at
            FROM (SELECT l.category_id, uu.reader_key, sum(uu.views) AS views, sum(uu.downloads) AS downloads, max(uu.last_at) AS last_at
                    FROM uu JOIN resource_category_links l ON l.resource_id = uu.resource_id GROUP BY l.category_id, uu.reader_key) per_reader
           GROUP BY category_id),
        rows AS (
          SELECT c.id AS category_id, c.name, c.archived_at IS NOT NULL AS archived,
                 (SELECT count(*) FROM resource_category_links l JOIN resources r ON r.id = l.resource_id AND ${reader.seeSql(binds, 'r')}
                   WHERE l.category_id = c.id)::bigint AS resource_count,
                 coalesce(a.views, 0)::bigint AS views, coalesce(a.downloads, 0)::bigint AS downloads,
                 coalesce(a.unique_users, 0)::bigint AS unique_users, ${iso('a.last_at')} AS last_at
            FROM resource_categories c LEFT JOIN per_category a ON a.category_id = c.id
           WHERE c.organization_id = ${binds.add(reader.organizationId)}::uuid)`,
        order: 'downloads DESC, views DESC, name, category_id',
        columns: ['category_id', 'name', 'archived', 'resource_count', 'views', 'downloads', 'unique_users', 'last_at'],
      };
    case 'members':
      return {
        ctes: `rows AS (
          SELECT m.user_id, u.first_name || ' ' || u.last_name AS name, u.email, m.views, m.downloads, m.resources_used, ${iso('m.last_at')} AS last_at,
                 m.views + m.downloads AS activity, m.last_at AS last_time
            FROM (SELECT user_id, sum(views)::bigint AS views, sum(downloads)::bigint AS downloads,
                         count(DISTINCT resource_id)::bigint AS resources_used, max(last_at) AS last_at
                    FROM uu WHERE user_id IS NOT NULL GROUP BY user_id) m
            JOIN users u ON u.id = m.user_id)`,
        order: 'activity DESC, last_time DESC, user_id',
        columns: ['user_id', 'name', 'email', 'views', 'downloads', 'resources_used', 'last_at'],
      };
    case 'trends': {
      const interval = binds.add(options.interval ?? 'day');
      const from = binds.add(range.from);
      const to = binds.add(range.to);
      return {
        ctes: `buckets AS (
          SELECT b::date AS bucket FROM generate_series(date_trunc(${interval}, ${from}::date::timestamp), ${to}::date::timestamp, ('1 ' || ${interval})::interval) b),
        per_bucket AS (
          SELECT bucket, sum(views)::bigint AS views, sum(downloads)::bigint AS downloads, count(*)::bigint AS unique_users
            FROM (SELECT date_trunc(${interval}, day::timestamp)::date AS bucket, reader_key, sum(views) AS views, sum(downloads) AS downloads
                    FROM uu GROUP BY 1, 2) per_reader
           GROUP BY bucket),
        rows AS (
          SELECT greatest(b.bucket, ${from}::date)::text AS period_start,
                 least((b.bucket + ('1 ' || ${interval})::interval)::date - 1, ${to}::date)::text AS period_end,
                 coalesce(a.views, 0)::bigint AS views, coalesce(a.downloads, 0)::bigint AS downloads, coalesce(a.unique_users, 0)::bigint AS unique_users
            FROM buckets b LEFT JOIN per_bucket a ON a.bucket = b.bucket)`,
        order: 'period_start',
        columns: ['period_start', 'period_end', 'views', 'downloads', 'unique_users'],
      };
    }
  }
}

export interface ReportPage<K extends ReportKind> {
  summary: ReportSummaryRow;
  totalItems: number;
  rows: ReportRows[K][];
}

export interface ResourceStatsRow {
  totals: { views: number; downloads: number; uniqueUsers: number };
  days: Array<{ date: string; views: number; downloads: number; uniqueUsers: number }>;
}

/** Numbers from bigint columns arrive as strings from pg; the counts here stay far below 2^53. */
const numeric = <T extends object>(row: T, keys: readonly string[]): T => {
  const copy = { ...row } as Record<string, unknown>;
  for (const key of keys) if (copy[key] !== null && copy[key] !== undefined) copy[key] = Number(copy[key]);
  return copy as T;
};
const NUMERIC = ['views', 'downloads', 'unique_users', 'resource_count', 'resources_used'];

/**
 * Memory for one report statement. A report aggregates its usage rows more than once (rows, key
 * metrics), from a materialised CTE; with the default 4 MB both the CTE and the hash aggregates
 * spill to temporary files on a year of a busy organization. Set per transaction, not per server.
 */
export const REPORT_WORK_MEM = '64MB';

export class ReportRepository {
  constructor(private readonly deps: { sql: Sql; sequelize: Sequelize }) {}

  /** One statement with the report's work_mem, in its own short transaction. */
  private async one<T>(text: string, values: unknown[]): Promise<T | undefined> {
    return this.deps.sequelize.transaction(async (transaction) => {
      await this.deps.sql.query(`SET LOCAL work_mem = '${REPORT_WORK_MEM}'`, [], transaction);
      return this.deps.sql.one<T>(text, values, transaction);
    });
  }

  /**
   * The last day the rollup is complete through. Read before the report: a refresh committing in
   * between rebuilds days up to the new watermark atomically and leaves the raw events in place, so
   * the split still counts every event once.
   */
  private async watermark(): Promise<string | null> {
    const row = await this.deps.sql.one<{ day: string }>(
      `SELECT complete_through::text AS day FROM resource_usage_rollup_state WHERE id = 1`,
    );
    return row?.day ?? null;
  }

  /** One page of a report (all rows when `page` is undefined: trends) with its key metrics. */
  async report<K extends ReportKind>(
    kind: K,
    reader: LibraryReader,
    range: DayRange,
    options: ReportOptions,
    page?: PageRequest,
  ): Promise<ReportPage<K>> {
    const through = await this.watermark();
    const binds = new Binds();
    const report = reportSql(kind, binds, reader, range, options);
    const limit = page ? `LIMIT ${binds.add(page.itemsPerPage)} OFFSET ${binds.add(offsetOf(page))}` : '';
    const row = await this.one<{ summary: ReportSummaryRow; total: string; rows: ReportRows[K][] | null }>(
      `WITH ${usageCte(binds, reader, range, through)}, ${SUMMARY_CTE}, ${report.ctes}
       SELECT (SELECT value FROM summary) AS summary, (SELECT count(*) FROM rows) AS total,
              (SELECT json_agg(p ORDER BY ${report.order}) FROM (SELECT ${selected(report)} FROM rows ORDER BY ${report.order} ${limit}) p) AS rows`,
      binds.values,
    );
    return {
      summary: row!.summary,
      totalItems: Number(row!.total),
      rows: (row!.rows ?? []).map((r) => numeric(r, NUMERIC)),
    };
  }

  /** The export's SELECT: every row of the report, in order, as arrays of the report's columns. */
  async exportQuery(
    kind: ReportKind,
    reader: LibraryReader,
    range: DayRange,
    options: ReportOptions,
  ): Promise<{ text: string; values: unknown[]; columns: readonly string[] }> {
    const through = await this.watermark();
    const binds = new Binds();
    const report = reportSql(kind, binds, reader, range, options);
    return {
      text: `WITH ${usageCte(binds, reader, range, through)}, ${report.ctes} SELECT ${report.columns.join(', ')} FROM rows ORDER BY ${report.order}`,
      values: binds.values,
      columns: report.columns,
    };
  }

  /** Totals and the per-day series of one resource (its access is checked by the caller). */
  async resourceStats(reader: LibraryReader, resourceId: string, range: DayRange): Promise<ResourceStatsRow> {
    const through = await this.watermark();
    const binds = new Binds();
    // one resource's rows fit the default work_mem: no transaction round trips
    const row = await this.deps.sql.one<ResourceStatsRow>(
      `WITH ${usageCte(binds, reader, range, through, resourceId)}, ${resourceDaysCte(binds, range, through, resourceId)}
       SELECT json_build_object('views', (SELECT coalesce(sum(views), 0) FROM uu), 'downloads', (SELECT coalesce(sum(downloads), 0) FROM uu),
                                'uniqueUsers', (SELECT count(*) FROM (SELECT DISTINCT reader_key FROM uu) readers)) AS totals,
              (SELECT json_agg(json_build_object('date', day::text, 'views', views, 'downloads', downloads, 'uniqueUsers', unique_users) ORDER BY day) FROM days) AS days`,
      binds.values,
    );
    return row!;
  }
}

/** The output columns and those the order uses that the output does not show (members: activity, last_time). */
function selected(report: ReportSql): string {
  const hidden = report.order
    .split(',')
    .map((part) => part.trim().split(' ')[0]!)
    .filter((name) => !report.columns.includes(name));
  return [...report.columns, ...hidden].join(', ');
}
