import { defineModule } from '../../shared/module-manifest.ts';
import { auditModule } from '../audit/index.ts';
import { crudRoutes } from '../crud/index.ts';
import { CrudService } from '../crud/index.ts';
import { eventEvents } from './event.domain-events.ts';
import { eventResource } from './event.definition.ts';
import { Event } from './event.model.ts';

export const eventsModule = defineModule({
  name: 'events',
  uses: [auditModule],
  models: { Event },
  services: ({ platform: { db, sql, clock, domainEvents }, uses: { audit } }) => ({
    events: new CrudService(eventResource, { sequelize: db.sequelize, sql, clock, audit, publisher: domainEvents }),
  }),
  routes: {
    api:
      ({ services, idempotency }) =>
      (router) =>
        crudRoutes(router, services.events, idempotency),
  },
  events: eventEvents,
  permissions: ['events:read', 'events:write'],
});
