import { defineModule } from '../../shared/module-manifest.ts';
import { jobAdminRoutes } from './job-admin.routes.ts';

export const jobsAdminModule = defineModule({
  name: 'jobs-admin',
  routes: { api: ({ container }) => (router) => jobAdminRoutes(router, container.services.jobs) },
  permissions: ['jobs:read'],
});
