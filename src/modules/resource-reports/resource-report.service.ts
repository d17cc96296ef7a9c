// Stats and reports on library usage. Readers are staff (`reports:read`: client admins, client users,
// API keys; platform admins inside an organization); members get 403. Every row passes through the
// library's one access policy (`seeSql`), so a client user's reports leave drafts out as their lists do,
// and a resource the reader does not see answers 404 for its stats.
import type { Readable } from 'node:stream';
import type { Sequelize } from 'sequelize';
import type { Actor } from '../../shared/access/actor.ts';
import { assertCan } from '../../shared/access/policy.ts';
import type { Clock } from '../../shared/clock.ts';
import type { PageRequest } from '../../shared/pagination.ts';
import type { Sql } from '../../shared/sql.ts';
import { requireResourceAccess, resolveReader, type LibraryReader } from '../library/index.ts';
import { openReportExport, type ExportFormat } from './report-export.ts';
import { parseDayRange, type DayRange } from './report-range.ts';
import {
  ReportRepository,
  type ReportKind,
  type ReportPage,
  type ResourceStatsRow,
  type TrendInterval,
} from './report.repository.ts';

export interface RangeInput {
  from?: string;
  to?: string;
}

export interface ReportInput extends RangeInput {
  interval?: TrendInterval;
}

export interface ExportInput extends ReportInput {
  report: ReportKind;
  format: ExportFormat;
}

export interface ReportExport {
  stream: Readable;
  fileName: string;
  contentType: string;
}

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export class ResourceReportService {
  private readonly repository: ReportRepository;

  constructor(private readonly deps: { sql: Sql; sequelize: Sequelize; clock: Clock }) {
    this.repository = new ReportRepository(deps);
  }

  async resourceStats(
    actor: Actor,
    resourceId: string,
    input: RangeInput,
  ): Promise<{ range: DayRange; stats: ResourceStatsRow }> {
    const reader = await this.reader(actor);
    await requireResourceAccess(this.deps.sql, reader, resourceId, 'see');
    const range = parseDayRange(input, this.deps.clock.now(), 'query');
    return { range, stats: await this.repository.resourceStats(reader, resourceId, range) };
  }

  async report<K extends ReportKind>(
    actor: Actor,
    kind: K,
    input: ReportInput,
    page?: PageRequest,
  ): Promise<{ range: DayRange; report: ReportPage<K> }> {
    const reader = await this.reader(actor);
    const range = parseDayRange(input, this.deps.clock.now(), 'query');
    return { range, report: await this.repository.report(kind, reader, range, { interval: input.interval }, page) };
  }

  async export(actor: Actor, input: ExportInput): Promise<ReportExport> {
    const reader = await this.reader(actor);
    const range = parseDayRange(input, this.deps.clock.now(), 'body');
    const source = await this.repository.exportQuery(input.report, reader, range, { interval: input.interval });
    return {
      stream: await openReportExport(this.deps.sequelize, input.report, input.format, source),
      fileName: `resource-${input.report}-${range.from}-${range.to}.${input.format}`,
      contentType: CONTENT_TYPES[input.format],
    };
  }

  /** `reports:read` first (a member is refused whatever they can see), then the library's reader. */
  private async reader(actor: Actor): Promise<LibraryReader> {
    assertCan(actor, 'reports:read');
    return resolveReader(this.deps.sql, actor);
  }
}
