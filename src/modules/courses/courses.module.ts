import { defineModule } from '../../shared/module-manifest.ts';
import { crudRoutes } from '../crud/crud.routes.ts';
import { courseEvents } from './course.domain-events.ts';
import { Course } from './course.model.ts';

export const coursesModule = defineModule({
  name: 'courses',
  models: { Course },
  routes: { api: ({ container, idempotency }) => (router) => crudRoutes(router, container.services.courses, idempotency) },
  events: courseEvents,
  permissions: ['courses:read', 'courses:write'],
});
