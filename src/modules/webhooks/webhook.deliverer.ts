// Attempts one delivery and records the outcome; the job queue calls it (webhook-delivery.job.ts).
// At-least-once: the delivery row exists before any attempt; the outcome, the attempt log and the
// next attempt's job are written in one transaction, so a crash anywhere repeats an attempt at worst
// and never loses one. Receivers de-duplicate by `webhook-id`.
import type { Sequelize } from 'sequelize';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../../shared/logger.ts';
import { WebhookAttempt, WebhookDelivery } from './webhook-delivery.model.ts';
import { WebhookEvent } from './webhook-event.model.ts';
import { WebhookSubscription } from './webhook-subscription.model.ts';
import { retryDelaySeconds } from './webhook.retry-schedule.ts';
import type { WebhookSecrets } from './webhook.secrets.ts';
import { postWebhook, type AttemptOutcome } from './webhook.sender.ts';
import { signDelivery } from './webhook.signer.ts';
import type { WebhookTargetGuard } from './webhook.target-guard.ts';

export const DELIVER_JOB = 'webhook.deliver';

/** `attempt` is the delivery's attempt count when the job was queued: a stale duplicate is ignored. */
export interface DeliverJobData {
  deliveryId: string;
  attempt: number;
}

export interface WebhookDelivererDeps {
  sequelize: Sequelize;
  clock: Clock;
  queue: JobQueue;
  guard: WebhookTargetGuard;
  secrets: WebhookSecrets;
  timeoutMs: number;
  retryDelaysSeconds: readonly number[];
  logger: Logger;
  random?: () => number;
}

const isSuccess = (status: number | null) => status !== null && status >= 200 && status < 300;

export class WebhookDeliverer {
  constructor(private readonly deps: WebhookDelivererDeps) {}

  async deliver({ deliveryId, attempt }: DeliverJobData): Promise<void> {
    const delivery = await WebhookDelivery.findByPk(deliveryId, {
      include: [
        { model: WebhookSubscription, as: 'subscription' },
        { model: WebhookEvent, as: 'event' },
      ],
    });
    // finished, deleted with its subscription, or already attempted by a duplicate job
    if (!delivery || delivery.status !== 'pending' || delivery.attemptCount !== attempt) return;
    const subscription = delivery.subscription!;
    if (subscription.status === 'paused') return; // resuming queues it again
    if (subscription.status === 'disabled') {
      await WebhookDelivery.update(
        { status: 'failed', nextAttemptAt: null, lastError: 'subscription disabled' },
        { where: { id: deliveryId, status: 'pending', attemptCount: attempt } },
      );
      return;
    }
    const outcome = await this.attempt(subscription, delivery.event!);
    await this.record(delivery, subscription, outcome);
  }

  private async attempt(subscription: WebhookSubscription, event: WebhookEvent): Promise<AttemptOutcome> {
    const { guard, secrets, clock, timeoutMs } = this.deps;
    const url = new URL(subscription.url);
    let address;
    try {
      address = await guard.resolve(url); // again now: the name may point elsewhere since it was saved
    } catch (error) {
      return { statusCode: null, durationMs: 0, error: `refused: ${(error as Error).message}`, responseExcerpt: null };
    }
    const now = clock.now();
    const headers = signDelivery(secrets.signingSecrets(subscription, now), event.id, now, event.body);
    return postWebhook(url, address, { ...headers }, event.body, timeoutMs);
  }

  private async record(delivery: WebhookDelivery, subscription: WebhookSubscription, outcome: AttemptOutcome): Promise<void> {
    const { sequelize, clock, queue, retryDelaysSeconds: delays, random, logger } = this.deps;
    const now = clock.now();
    const gone = outcome.statusCode === 410;
    const failures = delivery.retryStep + 1;
    const delay = isSuccess(outcome.statusCode) || gone ? null : retryDelaySeconds(failures, delays, random);
    const status = isSuccess(outcome.statusCode) ? 'succeeded' : delay === null ? 'failed' : 'pending';
    await sequelize.transaction(async (transaction) => {
      const [updated] = await WebhookDelivery.update(
        {
          status,
          attemptCount: delivery.attemptCount + 1,
          retryStep: failures,
          lastAttemptAt: now,
          lastStatusCode: outcome.statusCode,
          lastError: outcome.error,
          nextAttemptAt: delay === null ? null : new Date(now.getTime() + delay * 1000),
        },
        { where: { id: delivery.id, status: 'pending', attemptCount: delivery.attemptCount }, transaction },
      );
      if (updated === 0) return; // a concurrent run recorded this attempt first
      await WebhookAttempt.create({ deliveryId: delivery.id, attemptedAt: now, ...outcome }, { transaction });
      if (gone) {
        await WebhookSubscription.update(
          { status: 'disabled', disabledReason: `The endpoint answered 410 Gone at ${now.toISOString()}` },
          { where: { id: subscription.id }, transaction },
        );
      }
      if (delay !== null) {
        await queue.enqueue<DeliverJobData>(DELIVER_JOB, { deliveryId: delivery.id, attempt: delivery.attemptCount + 1 }, { transaction, startAfter: delay });
      }
    });
    logger.info({ deliveryId: delivery.id, status, statusCode: outcome.statusCode, retryInSeconds: delay }, 'webhook attempt recorded');
  }
}
