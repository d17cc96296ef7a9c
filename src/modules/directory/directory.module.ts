import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { auditModule } from '../audit/index.ts';
import { mailModule } from '../mail/index.ts';
import { membersModule } from '../members/index.ts';
import { Organization } from '../organizations/index.ts';
import { ssoModule } from '../sso/index.ts';
import { Directory } from './directory.model.ts';
import { DirectoryProvisioning } from './directory-provisioning.service.ts';
import { directoryRoutes } from './directory.routes.ts';
import { DirectoryService } from './directory.service.ts';
import { directorySyncJob } from './identity-service/directory-sync.job.ts';
import { DirectorySyncService } from './identity-service/directory-sync.service.ts';
import { IdpDirectoryWriter } from './identity-service/idp-directory.writer.ts';
import { idpEventJob } from './identity-service/idp-event.job.ts';
import { IdpEventsService } from './identity-service/idp-events.service.ts';
import { idpWebhookRoutes } from './identity-service/idp-webhook.routes.ts';
import { scimRoutes } from './scim/scim.routes.ts';

export const directoryModule = defineModule({
  name: 'directory',
  uses: [auditModule, mailModule, membersModule, ssoModule],
  models: { Directory },
  services: ({ platform, uses: { audit, mail, memberAccounts, identityServiceSettings, ssoConnections } }) => {
    const { db, sql, clock, queue, config } = platform;
    const directoryProvisioning = new DirectoryProvisioning({
      sequelize: db.sequelize,
      sql,
      clock,
      audit,
      mail,
      memberAccounts,
      loginUrlOf: async (organizationId) => {
        const organization = await Organization.findByPk(organizationId, { attributes: ['slug'] });
        return `${config.baseUrl}/auth/sso?organization=${organization?.slug ?? organizationId}`;
      },
    });
    const directories = new DirectoryService({
      sequelize: db.sequelize,
      sql,
      clock,
      audit,
      enqueueSync: (run, transaction) => queue.enqueue(directorySyncJob.name, { runId: run.id }, { transaction }),
    });
    const writer = new IdpDirectoryWriter(directoryProvisioning);
    return {
      directories,
      directoryProvisioning,
      directorySync: new DirectorySyncService({
        sql,
        clock,
        writer,
        apiUrl: new URL(config.sso.identityServiceUrl),
        settings: () => identityServiceSettings.current(),
      }),
      idpEvents: new IdpEventsService({
        sequelize: db.sequelize,
        sql,
        clock,
        audit,
        writer,
        directoryOf: (externalId) => directories.byExternalId(externalId),
        connections: ssoConnections,
        enqueue: (eventId, transaction) => queue.enqueue(idpEventJob.name, { eventId }, { transaction }),
      }),
      idpWebhookSecret: async () => (await identityServiceSettings.current())?.webhookSecret ?? null,
    };
  },
  routes: {
    api:
      ({ services, platform }) =>
      (router) =>
        directoryRoutes(router, services.directories, `${platform.config.baseUrl}/scim/v2`),
    scim:
      ({ services, platform }) =>
      (router) =>
        scimRoutes(router, {
          directories: services.directories,
          provisioning: services.directoryProvisioning,
          sql: platform.sql,
          limiter: platform.limiter,
          rateLimitPerMinute: platform.config.scim.rateLimitPerMinute,
          baseUrl: platform.config.baseUrl,
        }),
    inboundWebhooks:
      ({ services, platform }) =>
      (router) =>
        idpWebhookRoutes(router, {
          events: services.idpEvents,
          webhookSecret: services.idpWebhookSecret,
          clock: platform.clock,
        }),
  },
  scimTokens: ({ services }) => services.directories.verifyToken,
  jobs: [directorySyncJob, idpEventJob],
  handlers: ({ services }) => [
    bindJob(directorySyncJob, services.directorySync),
    bindJob(idpEventJob, services.idpEvents),
  ],
  errors: ['managed_by_directory'],
  ownedUserData: [],
});
