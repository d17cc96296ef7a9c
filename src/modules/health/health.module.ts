import { defineModule } from '../../shared/module-manifest.ts';
import { healthRoutes } from './health.routes.ts';

export const healthModule = defineModule({
  name: 'health',
  routes: {
    api:
      ({ platform }) =>
      (router) =>
        healthRoutes(router, platform.db),
  },
});
