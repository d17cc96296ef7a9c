import { pipeline } from 'node:stream';
import type { Router } from 'express';
import { create as contentDisposition } from 'content-disposition';
import { actorOf } from '../../http/context.ts';
import { sendPage } from '../../http/respond.ts';
import { pageRequest } from '../../shared/pagination.ts';
import { toPagedReport, toResourceStats, toTrendReport } from './report.mapper.ts';
import type { TrendInterval } from './report.repository.ts';
import type { ResourceReportService } from './resource-report.service.ts';

type RangeQuery = { from?: string; to?: string; interval?: TrendInterval };
const rangeOf = (query: unknown): RangeQuery => {
  const { from, to, interval } = query as Record<string, string | undefined>;
  return { from, to, interval: interval as TrendInterval | undefined };
};

// Registered before the library's `/api/resources/:id` routes (src/modules.ts), so `reports` is never read as an id.
export function resourceReportRoutes(router: Router, reports: ResourceReportService): void {
  for (const kind of ['usage', 'categories', 'members'] as const) {
    router.get(`/api/resources/reports/${kind}`, async (req, res) => {
      const page = pageRequest(req.query);
      const { range, report } = await reports.report(actorOf(req), kind, rangeOf(req.query), page);
      sendPage(req, res, toPagedReport(kind, range, report, page));
    });
  }
  router.get('/api/resources/reports/trends', async (req, res) => {
    const input = rangeOf(req.query);
    const { range, report } = await reports.report(actorOf(req), 'trends', input);
    res.json(toTrendReport(range, input.interval ?? 'day', report));
  });
  router.post('/api/resources/reports/export', async (req, res, next) => {
    const exported = await reports.export(actorOf(req), req.body);
    res.setHeader('Content-Type', exported.contentType);
    res.setHeader('Content-Disposition', contentDisposition(exported.fileName));
    res.setHeader('Cache-Control', 'no-store');
    // a failure before the first byte is an ordinary problem+json; later the error handler cuts the stream
    pipeline(exported.stream, res, (error) => error && next(error));
  });
  router.get('/api/resources/:id/stats', async (req, res) => {
    const { range, stats } = await reports.resourceStats(actorOf(req), req.params.id, rangeOf(req.query));
    res.json(toResourceStats(req.params.id, range, stats));
  });
}
