// A subscription's deliveries with every attempt, and redelivery of one of them.
import { Op, type Sequelize } from 'sequelize';
import type { Actor } from '../../shared/access/actor.ts';
import type { Clock } from '../../shared/clock.ts';
import { errors } from '../../shared/errors.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import type { AuditService } from '../audit/index.ts';
import { WebhookAttempt, WebhookDelivery, type WebhookDeliveryStatus } from './webhook-delivery.model.ts';
import { WebhookEvent } from './webhook-event.model.ts';
import type { WebhookService } from './webhook.service.ts';

export interface DeliveryWithAttempts {
  delivery: WebhookDelivery;
  attempts: WebhookAttempt[];
}

const withEventType = { model: WebhookEvent, as: 'event', attributes: ['id', 'type'] };

async function attemptsOf(deliveries: WebhookDelivery[]): Promise<DeliveryWithAttempts[]> {
  const attempts = await WebhookAttempt.findAll({
    where: { deliveryId: { [Op.in]: deliveries.map((d) => d.id) } },
    order: [['id', 'ASC']],
  });
  return deliveries.map((delivery) => ({ delivery, attempts: attempts.filter((a) => a.deliveryId === delivery.id) }));
}

export class WebhookDeliveryService {
  constructor(
    private readonly deps: {
      sequelize: Sequelize;
      clock: Clock;
      audit: AuditService;
      subscriptions: WebhookService;
      /** Tells this instance's dispatcher (if it runs one) to look now rather than at its next poll. */
      wake?: () => void;
    },
  ) {}

  async list(
    actor: Actor,
    webhookId: string,
    page: PageRequest,
    filter: { status?: WebhookDeliveryStatus } = {},
  ): Promise<Page<DeliveryWithAttempts>> {
    const subscription = await this.deps.subscriptions.get(actor, webhookId); // permission and tenant
    const where = { subscriptionId: subscription.id, ...(filter.status ? { status: filter.status } : {}) };
    const [rows, count] = await Promise.all([
      WebhookDelivery.findAll({
        where,
        include: [withEventType],
        order: [
          ['createdAt', 'DESC'],
          ['id', 'DESC'],
        ],
        limit: page.itemsPerPage,
        offset: offsetOf(page),
      }),
      WebhookDelivery.count({ where }),
    ]);
    return pageOf(await attemptsOf(rows), count, page);
  }

  /** Back to pending with a fresh retry schedule; same webhook-id, so receivers can still de-duplicate. */
  async redeliver(actor: Actor, webhookId: string, deliveryId: string): Promise<DeliveryWithAttempts> {
    const delivery = await this.deps.sequelize.transaction(async (transaction) => {
      const subscription = await this.deps.subscriptions.get(actor, webhookId, transaction);
      const found = await WebhookDelivery.findOne({
        where: { id: deliveryId, subscriptionId: subscription.id },
        include: [withEventType],
        transaction,
        lock: { level: transaction.LOCK.UPDATE, of: WebhookDelivery },
      });
      // a delivery that does not exist is 404 whatever the subscription's state
      if (!found) throw errors.notFound('Delivery', deliveryId);
      if (subscription.status !== 'active')
        throw errors.conflict(`The subscription is ${subscription.status}; resume it (status: active) first`);
      // the deliveries table is the queue: pending and due is all it takes
      await found.update({ status: 'pending', retryStep: 0, nextAttemptAt: this.deps.clock.now() }, { transaction });
      await this.deps.audit.record(
        actor,
        { action: 'webhook.redelivered', targetType: 'webhook_delivery', targetId: found.id },
        transaction,
      );
      return found;
    });
    this.deps.wake?.();
    return (await attemptsOf([delivery]))[0]!;
  }

  /** Retention: finished deliveries older than the cutoff, then events no delivery refers to. */
  async purgeFinishedBefore(cutoff: Date): Promise<number> {
    const removed = await WebhookDelivery.destroy({
      where: { status: { [Op.ne]: 'pending' }, updatedAt: { [Op.lt]: cutoff } },
    });
    await this.deps.sequelize.query(
      'DELETE FROM webhook_events e WHERE e.occurred_at < $1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)',
      { bind: [cutoff] },
    );
    return removed;
  }
}
