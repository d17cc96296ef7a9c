import { systemClock } from '../../shared/clock.ts';
import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { auditModule } from '../audit/index.ts';
import { webhookDeliveryJob, webhookPurgeJob } from './webhook-delivery.job.ts';
import { WebhookAttempt, WebhookDelivery } from './webhook-delivery.model.ts';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.ts';
import { WebhookDeliveryService } from './webhook-delivery.service.ts';
import { WebhookEvent } from './webhook-event.model.ts';
import { WebhookSubscription } from './webhook-subscription.model.ts';
import { webhookEventTypes } from './webhook.catalog.ts';
import { WebhookDeliverer } from './webhook.deliverer.ts';
import { WebhookDispatcher } from './webhook.dispatcher.ts';
import { WebhookPublisher } from './webhook.publisher.ts';
import { webhookRoutes } from './webhook.routes.ts';
import { WebhookSecrets } from './webhook.secrets.ts';
import { WebhookSender } from './webhook.sender.ts';
import { WebhookService } from './webhook.service.ts';
import { WebhookTargetGuard } from './webhook.target-guard.ts';

export const webhooksModule = defineModule({
  name: 'webhooks',
  uses: [auditModule],
  models: { WebhookSubscription, WebhookEvent, WebhookDelivery, WebhookAttempt },
  associate() {
    WebhookDelivery.belongsTo(WebhookSubscription, { as: 'subscription', foreignKey: 'subscriptionId' });
    WebhookDelivery.belongsTo(WebhookEvent, { as: 'event', foreignKey: 'eventId' });
    WebhookDelivery.hasMany(WebhookAttempt, { as: 'attempts', foreignKey: 'deliveryId' });
  },
  services: ({ platform, uses: { audit } }) => {
    const { db, sql, clock, queue, config, logger, deriveKey, dnsLookup, domainEvents } = platform;
    const { sequelize } = db;
    const settings = config.webhooks;
    const secrets = new WebhookSecrets(deriveKey('webhook-secrets'));
    const guard = new WebhookTargetGuard({ allowPrivateTargets: settings.allowPrivateTargets, lookup: dnsLookup });
    const webhooks = new WebhookService({
      sequelize,
      clock,
      audit,
      queue,
      guard,
      secrets,
      eventTypes: webhookEventTypes(domainEvents),
    });
    const webhookDispatcher = new WebhookDispatcher({
      repository: new WebhookDeliveryRepository({ sequelize, sql }),
      deliverer: new WebhookDeliverer({
        guard,
        secrets,
        sender: new WebhookSender(settings.concurrency),
        timeoutMs: settings.timeoutMs,
      }),
      // delivery timing runs on wall time, as receivers and the network do (tests build their own with a ManualClock)
      clock: systemClock,
      logger: logger.child({ module: 'webhooks' }),
      options: {
        concurrency: settings.concurrency,
        pollIntervalMs: settings.pollIntervalMs,
        breakerThreshold: settings.breakerThreshold,
        breakerCooldownMs: settings.breakerCooldownSeconds * 1000,
        // a claimed delivery is another instance's to retry only once a whole attempt (and its retry) must have ended
        leaseMs: 2 * settings.timeoutMs + 60_000,
        retryDelaysSeconds: settings.retryDelaysSeconds,
      },
    });
    // the dispatcher runs wherever the queue's workers run
    queue.runAlongside(webhookDispatcher);
    const webhookDeliveries = new WebhookDeliveryService({
      sequelize,
      clock,
      audit,
      subscriptions: webhooks,
      wake: () => webhookDispatcher.wake(),
    });
    return { webhooks, webhookDispatcher, webhookDeliveries };
  },
  routes: {
    api:
      ({ services, idempotency }) =>
      (router) =>
        webhookRoutes(router, services.webhooks, services.webhookDeliveries, idempotency),
  },
  jobs: [webhookDeliveryJob, webhookPurgeJob],
  handlers: ({ services, platform }) => [
    bindJob(webhookDeliveryJob, services.webhookDispatcher),
    bindJob(webhookPurgeJob, { deliveries: services.webhookDeliveries, now: () => platform.clock.now() }),
  ],
  // public domain events become webhook deliveries, in the causing transaction
  subscribers: ({ platform }) => [new WebhookPublisher({ queue: platform.queue, sql: platform.sql })],
  permissions: ['webhooks:manage'],
  errors: ['unsafe_webhook_target'],
});
