// Subscriptions: create (secret shown once), list, get, change/pause/resume, delete, rotate secret.
import type { Sequelize, Transaction } from 'sequelize';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Actor } from '../../shared/access/actor.ts';
import { assertCan } from '../../shared/access/policy.ts';
import { scopeFor } from '../../shared/access/scope.ts';
import { requireTenant } from '../../shared/access/tenancy.ts';
import type { Clock } from '../../shared/clock.ts';
import { errors } from '../../shared/errors.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import type { AuditService } from '../audit/index.ts';
import { WebhookDelivery } from './webhook-delivery.model.ts';
import { WebhookSubscription } from './webhook-subscription.model.ts';
import type { WebhookEventType, WebhookEventTypes } from './webhook.catalog.ts';
import { DELIVER_JOB } from './webhook.deliverer.ts';
import { toWebhookDto } from './webhook.mapper.ts';
import { retire, type WebhookSecrets } from './webhook.secrets.ts';
import { newWebhookSecret } from './webhook.signer.ts';
import type { WebhookTargetGuard } from './webhook.target-guard.ts';

/** After a rotation the old secret signs too, for this long, so receivers can switch over. */
export const ROTATION_GRACE_MS = 24 * 3600_000;

export interface WebhookInput {
  url: string;
  events: string[];
  description?: string | null;
}
export interface WebhookPatch extends Partial<WebhookInput> {
  status?: 'active' | 'paused';
}
export interface WebhookWithSecret {
  subscription: WebhookSubscription;
  secret: string;
}

export interface WebhookServiceDeps {
  sequelize: Sequelize;
  clock: Clock;
  audit: AuditService;
  queue: JobQueue;
  guard: WebhookTargetGuard;
  secrets: WebhookSecrets;
  /** The public kinds of every module's event catalog, with their descriptions (webhook.catalog.ts). */
  eventTypes: WebhookEventTypes;
}

export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  eventTypes(actor: Actor): Array<{ type: WebhookEventType; description: string }> {
    assertCan(actor, 'webhooks:manage');
    return Object.entries(this.deps.eventTypes).map(([type, description]) => ({
      type: type as WebhookEventType,
      description,
    }));
  }

  private eventTypesOf(events: string[]): WebhookEventType[] {
    const unknown = events.filter((event) => !Object.hasOwn(this.deps.eventTypes, event));
    if (unknown.length)
      throw errors.validation(
        unknown.map((event) => ({ field: 'events', message: `${event} is not an event kind of the catalog` })),
      );
    return [...new Set(events)] as WebhookEventType[];
  }

  async create(actor: Actor, input: WebhookInput): Promise<WebhookWithSecret> {
    assertCan(actor, 'webhooks:manage');
    const organizationId = requireTenant(actor);
    const eventTypes = this.eventTypesOf(input.events);
    const url = (await this.deps.guard.check(input.url)).toString();
    const secret = newWebhookSecret();
    return this.deps.sequelize.transaction(async (transaction) => {
      const subscription = await WebhookSubscription.create(
        {
          organizationId,
          url,
          eventTypes,
          description: input.description ?? null,
          secretSealed: this.deps.secrets.seal(secret),
        },
        { transaction },
      );
      await this.audit(actor, 'webhook.created', subscription, transaction);
      return { subscription, secret };
    });
  }

  async list(actor: Actor, page: PageRequest): Promise<Page<WebhookSubscription>> {
    const { rows, count } = await WebhookSubscription.findAndCountAll({
      where: scopeFor(actor, 'webhook', 'read').where(),
      order: [
        ['createdAt', 'DESC'],
        ['id', 'DESC'],
      ],
      limit: page.itemsPerPage,
      offset: offsetOf(page),
    });
    return pageOf(rows, count, page);
  }

  async get(actor: Actor, id: string, transaction?: Transaction): Promise<WebhookSubscription> {
    const subscription = await WebhookSubscription.findOne({
      where: scopeFor(actor, 'webhook', transaction ? 'write' : 'read').where({ id }),
      transaction,
      lock: transaction?.LOCK.UPDATE,
    });
    if (!subscription) throw errors.notFound('Webhook', id);
    return subscription;
  }

  async update(actor: Actor, id: string, patch: WebhookPatch): Promise<WebhookSubscription> {
    assertCan(actor, 'webhooks:manage');
    const url = patch.url === undefined ? undefined : (await this.deps.guard.check(patch.url)).toString();
    return this.deps.sequelize.transaction(async (transaction) => {
      const subscription = await this.get(actor, id, transaction);
      const resuming = patch.status === 'active' && subscription.status !== 'active';
      subscription.set({
        ...(url !== undefined ? { url } : {}),
        ...(patch.events !== undefined ? { eventTypes: this.eventTypesOf(patch.events) } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.status !== undefined ? { status: patch.status } : {}),
        // the reason describes a disabled subscription: pausing or resuming one leaves that state, and it
        ...(patch.status !== undefined ? { disabledReason: null } : {}),
      });
      if (!subscription.changed()) return subscription;
      await subscription.save({ transaction });
      if (resuming) await this.requeuePending(subscription.id, transaction);
      await this.audit(
        actor,
        patch.status === 'paused' ? 'webhook.paused' : resuming ? 'webhook.resumed' : 'webhook.updated',
        subscription,
        transaction,
      );
      return subscription;
    });
  }

  async remove(actor: Actor, id: string): Promise<void> {
    await this.deps.sequelize.transaction(async (transaction) => {
      const subscription = await this.get(actor, id, transaction);
      await subscription.destroy({ transaction }); // deliveries and attempts cascade
      await this.audit(actor, 'webhook.deleted', subscription, transaction);
    });
  }

  async rotateSecret(actor: Actor, id: string): Promise<WebhookWithSecret> {
    const secret = newWebhookSecret();
    return this.deps.sequelize.transaction(async (transaction) => {
      const subscription = await this.get(actor, id, transaction);
      const now = this.deps.clock.now();
      await subscription.update(
        {
          retiredSecrets: retire(subscription, new Date(now.getTime() + ROTATION_GRACE_MS), now),
          secretSealed: this.deps.secrets.seal(secret),
        },
        { transaction },
      );
      await this.audit(actor, 'webhook.secret_rotated', subscription, transaction);
      return { subscription, secret };
    });
  }

  /** Deliveries that waited while the subscription was paused or disabled go out now. */
  private async requeuePending(subscriptionId: string, transaction: Transaction): Promise<void> {
    const pending = await WebhookDelivery.findAll({
      attributes: ['id', 'attemptCount'],
      where: { subscriptionId, status: 'pending' },
      transaction,
    });
    for (const delivery of pending) {
      const job = { deliveryId: delivery.id, attempt: delivery.attemptCount };
      await this.deps.queue.enqueue(DELIVER_JOB, job, { transaction });
    }
  }

  private audit(
    actor: Actor,
    action: string,
    subscription: WebhookSubscription,
    transaction: Transaction,
  ): Promise<void> {
    return this.deps.audit.record(
      actor,
      { action, targetType: 'webhook', targetId: subscription.id, after: toWebhookDto(subscription) },
      transaction,
    );
  }
}
