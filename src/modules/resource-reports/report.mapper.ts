// Rows of the report queries -> the wire shapes of openapi.yaml (`components/schemas/*Report*`).
import type { components } from '../../types/openapi.d.ts';
import { pageOf, type PageRequest } from '../../shared/pagination.ts';
import type { DayRange } from './report-range.ts';
import type {
  CategoryRow,
  MemberRow,
  ReportKind,
  ReportPage,
  ReportRows,
  ResourceStatsRow,
  TrendInterval,
  TrendRow,
  UsageRow,
} from './report.repository.ts';

type Schemas = components['schemas'];
export type ReportSummaryDto = Schemas['ReportSummary'];

/** Timestamps come formatted by PostgreSQL (UTC); a null stays null. */
const time = (value: string | null): string | null => (value === null ? null : new Date(value).toISOString());

const toSummary = (summary: ReportPage<ReportKind>['summary']): ReportSummaryDto => ({
  totalViews: Number(summary.totalViews),
  totalDownloads: Number(summary.totalDownloads),
  uniqueUsers: Number(summary.uniqueUsers),
  topResource: summary.topResource
    ? {
        id: summary.topResource.id,
        name: summary.topResource.name,
        downloads: Number(summary.topResource.downloads),
        views: Number(summary.topResource.views),
      }
    : null,
});

export const toUsageRow = (row: UsageRow): Schemas['UsageReportRow'] => ({
  resourceId: row.resource_id,
  name: row.name,
  type: row.type as Schemas['UsageReportRow']['type'],
  format: row.format as Schemas['UsageReportRow']['format'],
  accessLevel: row.access_level as Schemas['AccessLevel'],
  status: row.status as Schemas['UsageReportRow']['status'],
  views: row.views,
  downloads: row.downloads,
  uniqueUsers: row.unique_users,
  lastActivityAt: time(row.last_at)!,
});

export const toCategoryRow = (row: CategoryRow): Schemas['CategoryReportRow'] => ({
  categoryId: row.category_id,
  name: row.name,
  archived: row.archived,
  resources: row.resource_count,
  views: row.views,
  downloads: row.downloads,
  uniqueUsers: row.unique_users,
  lastActivityAt: time(row.last_at),
});

export const toMemberRow = (row: MemberRow): Schemas['MemberEngagementRow'] => ({
  userId: row.user_id,
  name: row.name,
  email: row.email,
  views: row.views,
  downloads: row.downloads,
  resourcesUsed: row.resources_used,
  lastActivityAt: time(row.last_at)!,
});

export const toTrendRow = (row: TrendRow): Schemas['TrendReportRow'] => ({
  periodStart: row.period_start,
  periodEnd: row.period_end,
  views: row.views,
  downloads: row.downloads,
  uniqueUsers: row.unique_users,
});

const ROW_MAPPERS: { [K in ReportKind]: (row: ReportRows[K]) => unknown } = {
  usage: toUsageRow,
  categories: toCategoryRow,
  members: toMemberRow,
  trends: toTrendRow,
};

/** A paged report (usage, categories, members): range, key metrics, one page and its pagination. */
export function toPagedReport<K extends 'usage' | 'categories' | 'members'>(
  kind: K,
  range: DayRange,
  report: ReportPage<K>,
  page: PageRequest,
) {
  const mapper = ROW_MAPPERS[kind] as (row: ReportRows[K]) => unknown;
  return {
    from: range.from,
    to: range.to,
    summary: toSummary(report.summary),
    ...pageOf(report.rows.map(mapper), report.totalItems, page),
  };
}

export function toTrendReport(
  range: DayRange,
  interval: TrendInterval,
  report: ReportPage<'trends'>,
): Schemas['TrendReport'] {
  return {
    from: range.from,
    to: range.to,
    interval,
    summary: toSummary(report.summary),
    data: report.rows.map(toTrendRow),
  };
}

export function toResourceStats(
  resourceId: string,
  range: DayRange,
  stats: ResourceStatsRow,
): Schemas['ResourceStats'] {
  return {
    resourceId,
    from: range.from,
    to: range.to,
    totals: {
      views: Number(stats.totals.views),
      downloads: Number(stats.totals.downloads),
      uniqueUsers: Number(stats.totals.uniqueUsers),
    },
    days: (stats.days ?? []).map((day) => ({
      date: day.date,
      views: Number(day.views),
      downloads: Number(day.downloads),
      uniqueUsers: Number(day.uniqueUsers),
    })),
  };
}
