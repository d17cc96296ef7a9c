import { defineModule } from '../../shared/module-manifest.ts';
import { activityRoutes } from './activity.routes.ts';

export const activityModule = defineModule({
  name: 'activity',
  routes: { api: ({ container }) => (router) => activityRoutes(router, container.services.activity) },
});
