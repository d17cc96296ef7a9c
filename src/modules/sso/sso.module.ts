import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { AppError, errors } from '../../shared/errors.ts';
import { auditModule } from '../audit/index.ts';
import { authModule } from '../auth/index.ts';
import { mailModule } from '../mail/index.ts';
import { membersModule } from '../members/index.ts';
import { WebhookTargetGuard } from '../webhooks/index.ts';
import { IdentityServiceSettingsService } from './identity-service-settings.service.ts';
import { BrokeredProtocol } from './protocols/brokered.protocol.ts';
import { OidcProtocol } from './protocols/oidc.protocol.ts';
import { SamlProtocol } from './protocols/saml.protocol.ts';
import type { ProtocolContext } from './protocols/sso-protocol.ts';
import { SsoAccountService } from './sso-account.service.ts';
import { ssoBrowserRoutes } from './sso-browser.routes.ts';
import { SsoConnection } from './sso-connection.model.ts';
import { SsoConnectionService } from './sso-connection.service.ts';
import { SsoLoginService } from './sso-login.service.ts';
import { SsoPolicyService } from './sso-policy.service.ts';
import { ssoPurgeJob } from './sso-purge.job.ts';
import { SsoSingleUseStore } from './sso-single-use.store.ts';
import { ssoEvents } from './sso.domain-events.ts';
import { ssoRoutes } from './sso.routes.ts';

export const ssoModule = defineModule({
  name: 'sso',
  uses: [auditModule, mailModule, authModule, membersModule],
  models: { SsoConnection },
  services: ({ platform, uses: { audit, mail, auth, memberAccounts } }) => {
    const { config, clock, sql, db, domainEvents, logger, dnsLookup } = platform;
    const key = platform.deriveKey('sso');
    const identityServiceSettings = new IdentityServiceSettingsService({
      sequelize: db.sequelize,
      sql,
      clock,
      audit,
      key,
    });
    const store = new SsoSingleUseStore({ sql, clock, key });
    // IdP metadata and OIDC discovery are fetched from addresses a client admin typed: the webhook SSRF guard
    const guard = new WebhookTargetGuard({
      allowPrivateTargets: config.webhooks.allowPrivateTargets,
      lookup: dnsLookup,
    });
    const context: ProtocolContext = {
      clock,
      replayCache: store,
      allowInsecureHttp: config.webhooks.allowPrivateTargets,
      spSigning: config.sso.spSigning,
      async checkOutboundUrl(url, field) {
        try {
          return await guard.check(url);
        } catch (error) {
          if (error instanceof AppError) throw errors.validation([{ field, message: error.message }]);
          throw error;
        }
      },
    };
    const ssoConnections = new SsoConnectionService({
      sequelize: db.sequelize,
      sql,
      clock,
      audit,
      publisher: domainEvents,
      secretsKey: key,
      baseUrl: config.baseUrl,
      protocols: {
        saml: new SamlProtocol(context),
        oidc: new OidcProtocol(context),
        identity_service: new BrokeredProtocol({
          apiUrl: new URL(config.sso.identityServiceUrl),
          settings: () => identityServiceSettings.current(),
        }),
      },
    });
    const ssoLogin = new SsoLoginService({
      clock,
      logger,
      audit,
      auth,
      connections: ssoConnections,
      accounts: new SsoAccountService({
        sequelize: db.sequelize,
        clock,
        audit,
        memberAccounts,
        mail,
        loginUrlOf: (id) => `${config.baseUrl}/auth/sso?connection=${id}`,
      }),
      store,
      identityService: identityServiceSettings,
      allowedOrigins: [config.baseUrl, ...Object.values(config.portals)].map((url) => new URL(url).origin),
      portals: config.portals,
    });
    const ssoPolicy = new SsoPolicyService({ sequelize: db.sequelize, sql, clock, audit });
    auth.addPasswordLoginCheck(ssoPolicy.checkPasswordLogin);
    return { ssoConnections, ssoLogin, ssoPolicy, identityServiceSettings, ssoStore: store };
  },
  routes: {
    api:
      ({ services }) =>
      (router) =>
        ssoRoutes(router, {
          connections: services.ssoConnections,
          login: services.ssoLogin,
          policy: services.ssoPolicy,
          identityServiceSettings: services.identityServiceSettings,
        }),
    sso:
      ({ services, platform }) =>
      (router) =>
        ssoBrowserRoutes(router, services.ssoLogin, platform.config.baseUrl),
  },
  jobs: [ssoPurgeJob],
  handlers: ({ services }) => [bindJob(ssoPurgeJob, { store: services.ssoStore })],
  events: ssoEvents,
  errors: ['invalid_connection', 'sso_login_failed', 'sso_domain_taken', 'sso_required'],
  ownedUserData: [],
});
