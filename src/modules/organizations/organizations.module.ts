import { defineModule } from '../../shared/module-manifest.ts';
import { organizationEvents } from './organization.domain-events.ts';
import { Organization } from './organization.model.ts';
import { organizationRoutes } from './organization.routes.ts';

export const organizationsModule = defineModule({
  name: 'organizations',
  models: { Organization },
  routes: { api: ({ container }) => (router) => organizationRoutes(router, container.services.organizations) },
  events: organizationEvents,
  permissions: ['platform:admin'],
  errors: ['organization_suspended'],
});
