// createApp(container): the Express app without listen(), so tests drive it in process.
import express, { Router, type Express, type Request } from 'express';
import { adminPortal } from '../admin/mount.ts';
import type { Container } from './container.ts';
import { authenticate } from './http/authenticate.ts';
import { impersonationGuard } from './http/impersonation.guard.ts';
import { requestContext } from './http/context.ts';
import { bracketAwareQueryParser } from './http/query-parser.ts';
import { docsRoutes } from './http/docs.routes.ts';
import { contractValidator, loadContract, type Contract } from './http/openapi.ts';
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
import { organizationRoutes } from './modules/organizations/organization.routes.ts';
import { pageRoutes } from './modules/pages/pages.routes.ts';
import { passwordResetRoutes, userAdminRoutes } from './modules/users/user.routes.ts';
import { webhookRoutes } from './modules/webhooks/webhook.routes.ts';

/** As body-parser decides it (type-is): a request has a body when it announces a length or chunks. */
const hasBody = (req: Request): boolean => req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;

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
  app.set('query parser', bracketAwareQueryParser(app.get('query parser fn')));

  app.use(requestContext());
  app.use(requestLog(logger));
  app.use(docsRoutes(contract));
  app.use(pageRoutes(config));
  // AdminJS parses its own bodies and keeps its own session: before express.json and the contract
  app.use('/admin', adminPortal(container, { eager: config.nodeEnv !== 'test' }));

  const parseJson = express.json({ limit: '1mb', type: ['application/json', 'application/*+json'] });
  app.use((req, res, next) => (hasBody(req) ? parseJson(req, res, next) : next())); // most GETs have none
  app.use(authenticate(services.auth, (id) => Organization.findByPk(id)));
  app.use(impersonationGuard((entry) => services.impersonation.recordRequest(entry), container.clock, logger));
  app.use(rateLimit(container.limiter, config.rateLimits));
  app.use(contractValidator(contract, config.validateResponses));

  // One routing table for every operation: a request walks it once instead of entering a router per module.
  const api = Router();
  healthRoutes(api, container.db);
  authRoutes(api, services.auth);
  apiKeyRoutes(api, services.apiKeys);
  passwordResetRoutes(api, services.passwords);
  userAdminRoutes(api, services.users, services.userDeletion, services.passwords);
  activityRoutes(api, services.activity);
  impersonationRoutes(api, services.impersonation);
  mailRoutes(api, services.mail);
  const idempotency = idempotent(services.idempotency, logger);
  crudRoutes(api, services.members, idempotency);
  crudRoutes(api, services.events, idempotency);
  crudRoutes(api, services.courses, idempotency);
  webhookRoutes(api, services.webhooks, services.webhookDeliveries, idempotency);
  jobAdminRoutes(api, services.jobs);
  organizationRoutes(api, services.organizations);
  app.use(api);

  app.use(routeNotFound());
  app.use(errorHandler(config.baseUrl, logger));
  return app;
}
