import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { resourceReportRoutes } from './resource-report.routes.ts';
import { ResourceReportService } from './resource-report.service.ts';
import { usageRollupJob } from './usage-rollup.job.ts';
import { UsageRollup } from './usage-rollup.repository.ts';

export const resourceReportsModule = defineModule({
  name: 'resource-reports',
  services: ({ platform: { db, sql, clock } }) => ({
    resourceReports: new ResourceReportService({ sql, sequelize: db.sequelize, clock }),
    usageRollup: new UsageRollup({ sequelize: db.sequelize, sql }),
  }),
  routes: {
    api:
      ({ services }) =>
      (router) =>
        resourceReportRoutes(router, services.resourceReports),
  },
  jobs: [usageRollupJob],
  handlers: ({ services, platform }) => [
    bindJob(usageRollupJob, { rollup: services.usageRollup, clock: platform.clock }),
  ],
  permissions: ['reports:read'],
});
