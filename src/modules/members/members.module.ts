import { defineModule } from '../../shared/module-manifest.ts';
import { crudRoutes } from '../crud/crud.routes.ts';
import { memberEvents } from './member.domain-events.ts';
import { Member } from './member.model.ts';

export const membersModule = defineModule({
  name: 'members',
  models: { Member },
  routes: { api: ({ container, idempotency }) => (router) => crudRoutes(router, container.services.members, idempotency) },
  events: memberEvents,
  permissions: ['members:read', 'members:write'],
});
