// The webhooks module's subscriber to domain events: every public event becomes a webhook event,
// one delivery per matching subscription and their delivery jobs, written inline in the causing
// transaction (the outbox), so a committed change always has its deliveries and a rolled-back one
// never does.
import type { JobQueue } from '../../jobs/queue.ts';
import type { DomainEvent, Subscriber, SubscriberContext } from '../../shared/domain-events/domain-event.ts';
import type { Sql } from '../../shared/sql.ts';
import { WebhookDelivery } from './webhook-delivery.model.ts';
import { WebhookEvent } from './webhook-event.model.ts';
import { DELIVER_JOB } from './webhook.deliverer.ts';

/** Standard Webhooks message id: the domain event's, the same for every subscriber and every retry. */
export const webhookIdOf = (eventId: string) => `msg_${eventId.replaceAll('-', '')}`;

export class WebhookPublisher implements Subscriber {
  readonly name = 'webhooks.publish';
  readonly events = 'public' as const;
  readonly mode = 'inline' as const;

  constructor(private readonly deps: { queue: JobQueue; sql: Sql }) {}

  /** The subscriptions an event of `type` goes to (also writesWhen's condition). */
  private static subscriptionsSql(organizationId: string, type: string) {
    return `SELECT id FROM webhook_subscriptions
             WHERE organization_id = ${organizationId} AND status = 'active' AND event_types @> ARRAY[${type}]::text[]`;
  }

  writesWhen({ organizationId, type }: DomainEvent, param: (value: unknown) => string): string {
    return organizationId
      ? `EXISTS (${WebhookPublisher.subscriptionsSql(param(organizationId), param(type))})`
      : 'false';
  }

  async handle(event: DomainEvent, { transaction }: SubscriberContext): Promise<void> {
    const { organizationId, type, occurredAt, data } = event;
    if (!organizationId) return; // subscriptions belong to an organization
    // plain SQL, the statement findAll built (every public event of every write asks; the model's
    // query building was a tenth of a SCIM create's CPU)
    const subscriptions = await this.deps.sql.rows<{ id: string }>(
      WebhookPublisher.subscriptionsSql('$1', '$2'),
      [organizationId, type],
      transaction,
    );
    if (subscriptions.length === 0) return;

    const id = webhookIdOf(event.id);
    const body = JSON.stringify({ type, timestamp: occurredAt.toISOString(), data });
    await WebhookEvent.create({ id, organizationId, type, body, occurredAt }, { transaction });
    const deliveries = await WebhookDelivery.bulkCreate(
      subscriptions.map((subscription) => ({
        organizationId,
        subscriptionId: subscription.id,
        eventId: id,
        nextAttemptAt: occurredAt,
      })),
      { transaction },
    );
    for (const delivery of deliveries) {
      await this.deps.queue.enqueue(DELIVER_JOB, { deliveryId: delivery.id, attempt: 0 }, { transaction });
    }
  }
}
