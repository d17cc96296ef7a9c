import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { webhookDeliveryJob, webhookPurgeJob } from './webhook-delivery.job.ts';
import { WebhookAttempt, WebhookDelivery } from './webhook-delivery.model.ts';
import { WebhookEvent } from './webhook-event.model.ts';
import { WebhookSubscription } from './webhook-subscription.model.ts';
import { WebhookPublisher } from './webhook.publisher.ts';
import { webhookRoutes } from './webhook.routes.ts';

export const webhooksModule = defineModule({
  name: 'webhooks',
  models: { WebhookSubscription, WebhookEvent, WebhookDelivery, WebhookAttempt },
  associate() {
    WebhookDelivery.belongsTo(WebhookSubscription, { as: 'subscription', foreignKey: 'subscriptionId' });
    WebhookDelivery.belongsTo(WebhookEvent, { as: 'event', foreignKey: 'eventId' });
    WebhookDelivery.hasMany(WebhookAttempt, { as: 'attempts', foreignKey: 'deliveryId' });
  },
  routes: {
    api: ({ container: { services }, idempotency }) => (router) => webhookRoutes(router, services.webhooks, services.webhookDeliveries, idempotency),
  },
  jobs: [
    bindJob(webhookDeliveryJob, (c) => c.services.webhookDispatcher),
    bindJob(webhookPurgeJob, (c) => ({ deliveries: c.services.webhookDeliveries, now: () => c.clock.now() })),
  ],
  // public domain events become webhook deliveries, in the causing transaction
  subscribers: ({ queue }) => [new WebhookPublisher({ queue })],
  permissions: ['webhooks:manage'],
  errors: ['unsafe_webhook_target'],
});
