// Domain events into the outbox: called by other services inside their own transaction, so the
// event, one delivery per matching subscription and the delivery jobs commit with the change.
import { randomUUID } from 'node:crypto';
import { Op, type Transaction } from 'sequelize';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Actor } from '../../shared/access/actor.ts';
import type { Clock } from '../../shared/clock.ts';
import type { EventPublisher } from '../crud/crud.service.ts';
import { WebhookDelivery } from './webhook-delivery.model.ts';
import { WebhookEvent } from './webhook-event.model.ts';
import { WebhookSubscription } from './webhook-subscription.model.ts';
import { isWebhookEventType } from './webhook.catalog.ts';
import { DELIVER_JOB, type DeliverJobData } from './webhook.deliverer.ts';

export class WebhookPublisher implements EventPublisher {
  constructor(private readonly deps: { clock: Clock; queue: JobQueue }) {}

  async publish(actor: Actor, type: string, data: object, transaction: Transaction): Promise<void> {
    if (!isWebhookEventType(type)) throw new Error(`${type} is not in the webhook event catalog`);
    const organizationId = actor.organizationId;
    if (!organizationId) return; // every event kind so far belongs to an organization
    const subscriptions = await WebhookSubscription.findAll({
      attributes: ['id'],
      where: { organizationId, status: 'active', eventTypes: { [Op.contains]: [type] } },
      transaction,
    });
    if (subscriptions.length === 0) return;

    const occurredAt = this.deps.clock.now();
    // Standard Webhooks message id: the same for every subscriber and every retry
    const id = `msg_${randomUUID().replaceAll('-', '')}`;
    const body = JSON.stringify({ type, timestamp: occurredAt.toISOString(), data });
    await WebhookEvent.create({ id, organizationId, type, body, occurredAt }, { transaction });
    const deliveries = await WebhookDelivery.bulkCreate(
      subscriptions.map((subscription) => ({ organizationId, subscriptionId: subscription.id, eventId: id, nextAttemptAt: occurredAt })),
      { transaction },
    );
    for (const delivery of deliveries) {
      await this.deps.queue.enqueue<DeliverJobData>(DELIVER_JOB, { deliveryId: delivery.id, attempt: 0 }, { transaction });
    }
  }
}
