import { defineModule } from '../../shared/module-manifest.ts';
import { auditModule } from '../audit/index.ts';
import { crudRoutes } from '../crud/index.ts';
import { CrudService } from '../crud/index.ts';
import { courseEvents } from './course.domain-events.ts';
import { courseResource } from './course.definition.ts';
import { Course } from './course.model.ts';

export const coursesModule = defineModule({
  name: 'courses',
  uses: [auditModule],
  models: { Course },
  services: ({ platform: { db, sql, clock, domainEvents }, uses: { audit } }) => ({
    courses: new CrudService(courseResource, { sequelize: db.sequelize, sql, clock, audit, publisher: domainEvents }),
  }),
  routes: {
    api:
      ({ services, idempotency }) =>
      (router) =>
        crudRoutes(router, services.courses, idempotency),
  },
  events: courseEvents,
  permissions: ['courses:read', 'courses:write'],
});
