import { defineModule } from '../../shared/module-manifest.ts';
import { crudRoutes } from '../crud/crud.routes.ts';
import { eventEvents } from './event.domain-events.ts';
import { Event } from './event.model.ts';

export const eventsModule = defineModule({
  name: 'events',
  models: { Event },
  routes: { api: ({ container, idempotency }) => (router) => crudRoutes(router, container.services.events, idempotency) },
  events: eventEvents,
  permissions: ['events:read', 'events:write'],
});
