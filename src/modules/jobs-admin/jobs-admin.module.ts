import { defineModule } from '../../shared/module-manifest.ts';
import { auditModule } from '../audit/index.ts';
import { JobAdminRepository } from './job-admin.repository.ts';
import { jobAdminRoutes } from './job-admin.routes.ts';
import { JobAdminService } from './job-admin.service.ts';

export const jobsAdminModule = defineModule({
  name: 'jobs-admin',
  uses: [auditModule],
  services: ({ platform: { db, queue }, uses: { audit } }) => ({
    jobs: new JobAdminService(new JobAdminRepository(db.sequelize), { queue, audit }),
  }),
  routes: {
    api:
      ({ services }) =>
      (router) =>
        jobAdminRoutes(router, services.jobs),
  },
  permissions: ['jobs:read'],
});
