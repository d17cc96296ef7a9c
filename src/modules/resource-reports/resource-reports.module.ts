import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { resourceReportRoutes } from './resource-report.routes.ts';
import { usageRollupJob } from './usage-rollup.job.ts';

export const resourceReportsModule = defineModule({
  name: 'resource-reports',
  routes: { api: ({ container }) => (router) => resourceReportRoutes(router, container.services.resourceReports) },
  jobs: [bindJob(usageRollupJob, (c) => ({ rollup: c.services.usageRollup, clock: c.clock }))],
  permissions: ['reports:read'],
});
