import { HubSpotOAuth } from '../../integrations/hubspot/hubspot.client.ts';
import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { auditModule } from '../audit/index.ts';
import { membersModule } from '../members/index.ts';
import { crmBrowserRoutes } from './crm-browser.routes.ts';
import { CrmBudget } from './crm-budget.ts';
import { CrmCompanies } from './crm-companies.ts';
import { CrmConnectionService } from './crm-connection.service.ts';
import { CrmDiagnosticsService } from './crm-diagnostics.service.ts';
import { CrmErrorLog } from './crm-error.log.ts';
import { CrmMappingCheck } from './crm-mapping.check.ts';
import { CrmSyncService } from './crm-sync.service.ts';
import { crmPurgeJob, crmSyncJob } from './crm-sync.job.ts';
import { crmMemberSubscriber } from './crm.subscriber.ts';
import { crmRoutes } from './crm.routes.ts';

/** The CRM (HubSpot): OAuth connection per organization, one-way member sync, diagnostics. */
export const crmModule = defineModule({
  name: 'crm',
  // members: its domain events are what the sync follows (subscribed by kind, after every module is built)
  uses: [auditModule, membersModule],
  services: ({ platform, uses: { audit } }) => {
    const { config, clock, sql, db, queue, logger } = platform;
    const { sequelize } = db;
    const { apiUrl, timeoutMs, app, authorizeUrl, burstLimit, dailyLimit } = config.crm;
    const hubspot = { url: apiUrl, timeoutMs };
    const limits = { burst: burstLimit, daily: dailyLimit };
    const budget = new CrmBudget({ sequelize, sql, limits });
    const errorLog = new CrmErrorLog({ sequelize, sql });
    const mapping = new CrmMappingCheck({ sequelize, sql, errorLog });
    let sync: CrmSyncService | undefined;
    const crmConnections = new CrmConnectionService({
      sequelize,
      sql,
      clock,
      logger,
      audit,
      key: platform.deriveKey('crm'),
      oauth: app ? new HubSpotOAuth(hubspot, app) : null,
      authorizeUrl,
      redirectUri: `${config.baseUrl}/auth/callback/crm`,
      clientId: app?.clientId ?? null,
      // a new connection (or a reconnection) sends every member: what waited is in the queue already
      onConnected: async (organizationId, transaction) => {
        await sync?.queueAll(organizationId, transaction);
      },
    });
    const companies = new CrmCompanies({ sql, errorLog });
    sync = new CrmSyncService({
      sequelize,
      sql,
      clock,
      logger,
      queue,
      hubspot,
      budget,
      connections: crmConnections,
      mapping,
      errorLog,
      companies,
    });
    const crmDiagnostics = new CrmDiagnosticsService({
      sequelize,
      sql,
      clock,
      audit,
      queue,
      hubspot,
      limits,
      connections: crmConnections,
      mapping,
      budget,
    });
    return { crmConnections, crmSync: sync, crmDiagnostics, crmBudget: budget };
  },
  routes: {
    api:
      ({ services }) =>
      (router) =>
        crmRoutes(router, {
          connections: services.crmConnections,
          sync: services.crmSync,
          diagnostics: services.crmDiagnostics,
        }),
    sso:
      ({ services, platform }) =>
      (router) =>
        crmBrowserRoutes(router, services.crmConnections, platform.config.portals.client),
  },
  jobs: [crmSyncJob, crmPurgeJob],
  handlers: ({ services, platform }) => [
    bindJob(crmSyncJob, services.crmSync),
    bindJob(crmPurgeJob, {
      purge: async () => {
        await services.crmBudget.purge();
        await platform.sql.query('DELETE FROM crm_oauth_states WHERE expires_at < now()');
      },
    }),
  ],
  subscribers: ({ services }) => [crmMemberSubscriber(services.crmSync)],
  errors: ['crm_not_connected', 'crm_not_configured'],
  // connected_by is history (ON DELETE SET NULL): the connection is the organization's, not the admin's
  ownedUserData: [],
});
