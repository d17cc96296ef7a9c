// The Admin Portal: AdminJS at /admin with the users datagrid and the platform's other resources,
// login for platform admins with a one-time code, sessions kept in PostgreSQL.
import AdminJS, { ComponentLoader, type CurrentAdmin } from 'adminjs';
import AdminJSExpress from '@adminjs/express';
import { Database, Resource } from '@adminjs/sequelize';
import connectPgSimple from 'connect-pg-simple';
import { Router } from 'express';
import session from 'express-session';
import pg from 'pg';
import type { AppContext as Container } from '../src/app-context.ts';
import { loadComponents } from './components/index.ts';
import type { PortalAdmin } from './portal-actor.ts';
import { PORTAL_STYLESHEET_PATH } from './portal-styles.ts';
import { refuseUnknownActions } from './unknown-actions.ts';
import { portalRoutes } from './portal.routes.ts';
import { dashboardRoutes } from './dashboard.routes.ts';
import { dashboardHandler } from './resources/dashboard.handler.ts';
import { platformResources } from './resources/platform.resources.ts';
import { LIBRARY_TRANSLATIONS, libraryResources } from './resources/library.resources.ts';
import { usersOptions, USERS_TRANSLATIONS } from './resources/users.options.ts';
import { UsersResource } from './resources/users.resource.ts';
import { ORGANIZATION_PROPERTY_LABELS, organizationsOptions } from './resources/organizations.options.ts';
import { OrganizationsResource } from './resources/organizations.resource.ts';
import { ssoConnectionResource, SSO_CONNECTION_TRANSLATIONS } from './resources/sso-connections.resource.ts';
import { IDENTITY_SERVICE_PAGE, identityServicePage } from './resources/identity-service.page.ts';
import { directoriesResource, DIRECTORY_TRANSLATIONS } from './resources/directories.resource.ts';
import { DIRECTORY_SYNC_PAGE, directorySyncPage } from './resources/directory-sync.page.ts';
import { CRM_PAGE, crmPage } from './resources/crm.page.ts';

let adapterRegistered = false;

/**
 * Platform admins only; once MFA is enabled the code is required, and only then may the session
 * impersonate or delete.
 */
async function authenticate(container: Container, email: string, password: string, otp: unknown): Promise<PortalAdmin> {
  const code = typeof otp === 'string' && otp.trim() ? otp.trim() : undefined;
  const { user, mfaVerified } = await container.services.auth.login({
    email: email ?? '',
    password: password ?? '',
    otp: code,
  });
  if (user.role !== 'ROLE_PLATFORM_ADMIN') throw new Error('The Admin Portal is for platform administrators');
  if (user.mfaEnabledAt && !mfaVerified) throw new Error('Enter the one-time code from your authenticator app');
  return { id: user.id, email: user.email, title: `${user.firstName} ${user.lastName}`, mfaVerified };
}

function sessionStore(container: Container): session.Store {
  const pool = new pg.Pool({
    connectionString: container.db.url,
    max: 4,
    application_name: 'guildhall-admin-sessions',
  });
  pool.on('error', (error) => container.logger.warn({ err: error }, 'admin session store connection error'));
  const PgStore = connectPgSimple(session);
  const store = new PgStore({
    pool,
    tableName: 'admin_sessions',
    createTableIfMissing: false,
    pruneSessionInterval: 15 * 60,
  });
  container.onClose(async () => {
    store.close();
    await pool.end();
  });
  return store;
}

export async function buildAdminPortal(container: Container): Promise<Router> {
  if (!adapterRegistered) {
    AdminJS.registerAdapter({ Database, Resource });
    adapterRegistered = true;
  }
  const componentLoader = new ComponentLoader();
  const components = loadComponents(componentLoader);
  const admin = new AdminJS({
    rootPath: '/admin',
    componentLoader,
    resources: [
      { resource: new UsersResource(container), options: usersOptions(container, components) },
      { resource: new OrganizationsResource(container), options: organizationsOptions(container, components) },
      ...platformResources(container, components),
      ssoConnectionResource(container, components),
      directoriesResource(container, components),
      ...libraryResources(container, components),
    ],
    // the sidebar's pages section is "Platform Settings" (labels.pages below)
    pages: {
      [IDENTITY_SERVICE_PAGE]: identityServicePage(container, components.IdentityServiceSettings),
      [DIRECTORY_SYNC_PAGE]: directorySyncPage(container, components.DirectorySync),
      [CRM_PAGE]: crmPage(container, components.CrmSync),
    },
    dashboard: { component: components.Dashboard, handler: dashboardHandler(container) },
    branding: { companyName: 'Guildhall', withMadeWithLove: false, logo: false },
    assets: { styles: [`/admin${PORTAL_STYLESHEET_PATH}`] },
    settings: { defaultPerPage: 25 },
    locale: {
      language: 'en',
      translations: {
        en: {
          labels: { pages: 'Platform Settings' },
          // AdminJS translates this refusal without its {{actionName}} and {{resourceId}}: the page showed
          // them as written (browser Back to a confirmation whose action the record no longer offers)
          // an action the record does not offer now (a deleted user's Edit, Impersonate of oneself),
          // reached by Back or a typed address, is AdminJS's 404 page: its text was for developers
          messages: {
            forbiddenError: 'This action is not available for this record now: open the record to see what it offers.',
            error404Action: 'This action is not available for this record now: open the record to see what it offers.',
          },
          // every resource's columns, unless its own translations say otherwise
          properties: {
            organizationId: 'Organization',
            createdAt: 'Created',
            updatedAt: 'Updated',
            lastUsedAt: 'Last used',
            revokedAt: 'Revoked',
          },
          pages: {
            [IDENTITY_SERVICE_PAGE]: 'Integrations',
            [DIRECTORY_SYNC_PAGE]: 'Directory Sync',
            [CRM_PAGE]: 'CRM',
          },
          resources: {
            users: USERS_TRANSLATIONS,
            sso_connections: SSO_CONNECTION_TRANSLATIONS,
            api_keys: {
              labels: { api_keys: 'API keys' },
              actions: { list: 'API keys', show: 'API key' },
              properties: { createdByUserId: 'Created by' },
            },
            directories: DIRECTORY_TRANSLATIONS,
            // the sidebar's names in sentence case, as its other entries ("API keys")
            audit_log: {
              labels: { audit_log: 'Audit log' },
              actions: { list: 'Audit log', show: 'Audit entry' },
              properties: {
                occurredAt: 'When',
                actorType: 'Actor type',
                actorId: 'Who',
                impersonatorId: 'Impersonated by',
                organizationId: 'Organization',
                targetType: 'Target type',
                targetId: 'Target',
                user: 'Who (user)', // the filter matches the user who acted, as the Who column shows
                before: 'Before',
                after: 'After',
              },
            },
            impersonation_requests: {
              labels: { impersonation_requests: 'Impersonated requests' },
              actions: { list: 'Requests made while impersonating', show: 'Impersonated request' },
              properties: {
                sessionId: 'Session',
                adminId: 'Admin',
                targetUserId: 'Target user',
                statusCode: 'Status',
                occurredAt: 'When',
              },
            },
            webhook_subscriptions: {
              labels: { webhook_subscriptions: 'Subscriptions' },
              actions: { list: 'Webhook subscriptions', show: 'Webhook subscription' },
              properties: { eventTypes: 'Events', disabledReason: 'Why disabled' },
            },
            webhook_deliveries: {
              labels: { webhook_deliveries: 'Deliveries' },
              actions: { list: 'Webhook deliveries', show: 'Webhook delivery' },
              properties: {
                subscriptionId: 'Subscription',
                attemptCount: 'Attempts',
                lastStatusCode: 'Last status',
                nextAttemptAt: 'Next attempt',
                lastAttemptAt: 'Last attempt',
              },
            },
            ...LIBRARY_TRANSLATIONS,
            mail_outbox: {
              labels: { mail_outbox: 'Mail outbox' },
              actions: { list: 'Mail outbox', show: 'Outbox message' },
              properties: {
                toAddress: 'To',
                redactedText: 'Message (secrets removed)',
                userId: 'User',
                createdAt: 'Created',
                sentAt: 'Sent',
              },
            },
            jobs: {
              actions: { list: 'Jobs', show: 'Job', retry: 'Retry', cancel: 'Cancel job' },
              properties: {
                retryCount: 'Retries',
                retryLimit: 'Retry limit',
                output: 'Last error / output',
                createdOn: 'Created',
                startedOn: 'Started',
                completedOn: 'Completed',
              },
            },
            impersonation_sessions: {
              labels: { impersonation_sessions: 'Impersonation sessions' },
              actions: { list: 'Impersonation sessions', show: 'Impersonation session' },
              properties: {
                adminId: 'Admin',
                targetUserId: 'Target user',
                startedAt: 'Started',
                endedAt: 'Ended',
                expiresAt: 'Expires',
                endReason: 'End reason',
                actionCount: 'Actions performed',
              },
            },
            organizations: {
              properties: ORGANIZATION_PROPERTY_LABELS,
              actions: {
                list: 'Organizations',
                show: 'Organization',
                new: 'New organization',
                edit: 'Edit organization',
                changePlan: 'Change plan',
                suspend: 'Suspend',
                reactivate: 'Reactivate',
                usersOfOrganization: 'Users of this organization',
              },
            },
          },
        },
      },
    },
  });
  // Production bundles the components here, awaited: @adminjs/express would start the same bundling
  // without handling its failure (an unhandled rejection stops the service). A failure rejects this
  // load instead (logged; the next request tries again); once bundled, its own call has nothing to do.
  await admin.initialize();
  process.env.ADMIN_JS_SKIP_BUNDLE = 'true';
  const { config } = container;
  const sessionSecret = container.deriveKey('admin-session').toString('base64url');
  const router = AdminJSExpress.buildAuthenticatedRouter(
    admin,
    {
      authenticate: (email, password, context) =>
        authenticate(
          container,
          email,
          password,
          (context?.req as { fields?: Record<string, unknown> } | undefined)?.fields?.otp,
        ) as Promise<CurrentAdmin>,
      cookieName: 'guildhall_admin',
      cookiePassword: sessionSecret,
    },
    null,
    {
      secret: sessionSecret, // the router sets it from cookiePassword too
      store: sessionStore(container),
      resave: false,
      saveUninitialized: false,
      rolling: true,
      cookie: {
        httpOnly: true,
        sameSite: 'lax',
        secure: config.adminPortal.secureCookies,
        maxAge: config.adminPortal.sessionTtlSeconds * 1000,
      },
    },
  );
  // after AdminJS's own routes, so its session and login check apply to these too
  router.use(portalRoutes(container));
  router.use(dashboardRoutes(container));
  // in front of AdminJS's routes: only a name that answers nothing is stopped, before any session check
  const portal = Router();
  portal.use(refuseUnknownActions(admin));
  portal.use(router);
  return portal;
}
