import { defineModule } from '../../shared/module-manifest.ts';
import { activityRoutes } from './activity.routes.ts';
import { ActivityService } from './activity.service.ts';

export const activityModule = defineModule({
  name: 'activity',
  services: ({ platform }) => ({ activity: new ActivityService({ sequelize: platform.db.sequelize }) }),
  routes: {
    api:
      ({ services }) =>
      (router) =>
        activityRoutes(router, services.activity),
  },
});
