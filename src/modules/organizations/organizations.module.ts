import { defineModule } from '../../shared/module-manifest.ts';
import { auditModule } from '../audit/index.ts';
import { organizationEvents } from './organization.domain-events.ts';
import { Organization } from './organization.model.ts';
import { organizationRoutes } from './organization.routes.ts';
import { OrganizationService } from './organization.service.ts';

export const organizationsModule = defineModule({
  name: 'organizations',
  uses: [auditModule],
  models: { Organization },
  services: ({ platform: { db, sql, clock, domainEvents }, uses: { audit } }) => ({
    organizations: new OrganizationService({ sequelize: db.sequelize, sql, clock, audit, events: domainEvents }),
  }),
  routes: {
    api:
      ({ services }) =>
      (router) =>
        organizationRoutes(router, services.organizations),
  },
  events: organizationEvents,
  permissions: ['platform:admin'],
  errors: ['organization_suspended'],
});
