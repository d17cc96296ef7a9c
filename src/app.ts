// createApp(container): the Express app without listen(), so tests drive it in process.
import express, { type Express } from 'express';
import { adminPortal } from '../admin/mount.ts';
import type { Container } from './container.ts';
import { authenticate } from './http/authenticate.ts';
import { impersonationGuard } from './http/impersonation.guard.ts';
import { requestContext } from './http/context.ts';
import { docsRoutes } from './http/docs.routes.ts';
import { contractValidator, deprecationHeaders, loadContract, type Contract } from './http/openapi.ts';
import { idempotent } from './http/idempotency.ts';
import { errorHandler, routeNotFound } from './http/problem.ts';
import { rateLimit } from './http/rate-limit.ts';
import { requestLog } from './http/request-log.ts';
import { activityRoutes } from './modules/activity/activity.routes.ts';
import { apiKeyRoutes } from './modules/api-keys/api-key.routes.ts';
import { authRoutes } from './modules/auth/auth.routes.ts';
import { crudRoutes } from './modules/crud/crud.routes.ts';
import { jobAdminRoutes } from './modules/jobs-admin/job-admin.routes.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { impersonationRoutes } from './modules/impersonation/impersonation.routes.ts';
import { mailRoutes } from './modules/mail/mail.routes.ts';
import { Organization } from './modules/organizations/organization.model.ts';
import { passwordResetRoutes, userAdminRoutes } from './modules/users/user.routes.ts';
import { webhookRoutes } from './modules/webhooks/webhook.routes.ts';

export interface AppOptions {
  contract?: Contract;
}

export function createApp(container: Container, options: AppOptions = {}): Express {
  const { config, logger, services } = container;
  const contract = options.contract ?? loadContract();
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // hashing every JSON body costs CPU on each request; lists change too often to cache
  app.set('trust proxy', 'loopback');
  app.set('query parser', 'extended'); // bracketed filters: createdAt[after]=..., order[lastName]=asc

  app.use(requestContext());
  app.use(requestLog(logger));
  app.use(docsRoutes(contract));
  // AdminJS parses its own bodies and keeps its own session: before express.json and the contract
  app.use('/admin', adminPortal(container, { eager: config.nodeEnv !== 'test' }));

  app.use(express.json({ limit: '1mb', type: ['application/json', 'application/*+json'] }));
  app.use(authenticate(services.auth, (id) => Organization.findByPk(id)));
  app.use(impersonationGuard((entry) => services.impersonation.recordRequest(entry), container.clock, logger));
  app.use(rateLimit(container.limiter, config.rateLimits));
  app.use(contractValidator(contract, config.validateResponses));
  app.use(deprecationHeaders());

  app.use(healthRoutes(container.db));
  app.use(authRoutes(services.auth));
  app.use(apiKeyRoutes(services.apiKeys));
  app.use(passwordResetRoutes(services.passwords));
  app.use(userAdminRoutes(services.users, services.userDeletion, services.passwords));
  app.use(activityRoutes(services.activity));
  app.use(impersonationRoutes(services.impersonation));
  app.use(mailRoutes(services.mail));
  const idempotency = idempotent(services.idempotency, logger);
  app.use(crudRoutes(services.members, idempotency));
  app.use(crudRoutes(services.events, idempotency));
  app.use(crudRoutes(services.courses, idempotency));
  app.use(webhookRoutes(services.webhooks, services.webhookDeliveries, idempotency));
  app.use(jobAdminRoutes(services.jobs));

  app.use(routeNotFound());
  app.use(errorHandler(config.baseUrl, logger));
  return app;
}
