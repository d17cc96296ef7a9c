// Sends due deliveries, many at a time, from the deliveries table itself (the queue). A loop claims
// what it has room for (fair across organizations: webhook-delivery.repository.ts), each claimed
// delivery goes out on its own (bounded: `concurrency` in flight), and outcomes are recorded in
// batches. Started and stopped by the process that runs jobs (JobQueue.runAlongside).
//
// Safe with several instances: a claim locks with SKIP LOCKED and leases until the delivery is
// recorded, and recording is conditional on the attempt count it claimed. A crash leaves leases that
// run out after `leaseMs`; the delivery is then attempted again (at least once, never lost).
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../../shared/logger.ts';
import type {
  BreakerChange,
  ClaimedDelivery,
  RecordedAttempt,
  WebhookDeliveryRepository,
} from './webhook-delivery.repository.ts';
import { afterAttempt, isSuccess, type AttemptResult, type WebhookDeliverer } from './webhook.deliverer.ts';

export interface WebhookDispatcherOptions {
  /** Deliveries in flight at once. */
  concurrency: number;
  /** How often to look for due deliveries when idle. */
  pollIntervalMs: number;
  /** Failures in a row that open an endpoint's circuit. */
  breakerThreshold: number;
  /** How long an open circuit keeps deliveries to it waiting. */
  breakerCooldownMs: number;
  /** How long a claim holds a delivery: well past the HTTP timeout. */
  leaseMs: number;
  retryDelaysSeconds: readonly number[];
}

export interface WebhookDispatcherDeps {
  repository: WebhookDeliveryRepository;
  deliverer: WebhookDeliverer;
  clock: Clock;
  logger: Logger;
  options: WebhookDispatcherOptions;
  random?: () => number;
}

interface Finished {
  delivery: ClaimedDelivery;
  result: AttemptResult;
  recorded: RecordedAttempt;
}

const RECORD_BATCH = 32;

export class WebhookDispatcher {
  private running = false;
  private loop?: Promise<void>;
  private wakeUp?: () => void;
  /** The loop waits for slots (rather than the poll timer) when due work was left behind. */
  private waitingForSlots = false;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly inFlightByOrganization = new Map<string, number>();
  private readonly inFlightBySubscription = new Map<string, number>();
  private completedSinceClaim = 0;
  private finished: Finished[] = [];
  private flushing?: Promise<void>;

  constructor(private readonly deps: WebhookDispatcherDeps) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops claiming, lets in-flight attempts finish (bounded by the HTTP timeout) and records them. */
  async stop(): Promise<void> {
    if (this.running) {
      this.running = false;
      this.wake();
      await this.loop;
    }
    await this.drain();
    this.deps.deliverer.close();
  }

  /** Look for due deliveries now (a new delivery was written, or a redelivery asked for). */
  wake(): void {
    this.wakeUp?.();
  }

  /** A delivery was written or made pending again: look now if it still waits (the `webhook.deliver` job). */
  async nudge(deliveryId: string): Promise<void> {
    if (await this.deps.repository.isPending(deliveryId)) this.wake();
  }

  /** One claim, for as many deliveries as there are free slots; returns how many went out. */
  async dispatchOnce(): Promise<{ claimed: number; more: boolean }> {
    const { repository, clock, options } = this.deps;
    const free = options.concurrency - this.inFlight.size;
    if (free <= 0) return { claimed: 0, more: true };
    this.completedSinceClaim = 0;
    const now = clock.now();
    // An organization may hold at most three quarters of the slots, so another's delivery always finds one.
    const organizationCap = Math.max(1, options.concurrency - Math.max(1, Math.floor(options.concurrency / 4)));
    // One endpoint at most half of them, so one that hangs leaves room for the organization's others.
    const endpointCap = Math.max(1, Math.floor(options.concurrency / 2));
    const { deliveries, more } = await repository.claim({
      now,
      leaseUntil: new Date(now.getTime() + options.leaseMs),
      slots: free,
      quotaLeft: (organizationId) => organizationCap - (this.inFlightByOrganization.get(organizationId) ?? 0),
      endpointQuotaLeft: (subscriptionId) => endpointCap - (this.inFlightBySubscription.get(subscriptionId) ?? 0),
      saturatedSubscriptions: [...this.inFlightBySubscription]
        .filter(([, count]) => count >= endpointCap)
        .map(([id]) => id),
      breakerThreshold: options.breakerThreshold,
    });
    for (const delivery of deliveries) this.launch(delivery);
    return { claimed: deliveries.length, more };
  }

  /** Resolves when every delivery in flight now has been attempted and recorded. */
  async drain(): Promise<void> {
    await Promise.allSettled(this.inFlight.values());
    await this.flush();
  }

  private async run(): Promise<void> {
    const { options, logger } = this.deps;
    while (this.running) {
      let more = false;
      try {
        more = (await this.dispatchOnce()).more;
      } catch (error) {
        logger.error({ err: error }, 'claiming webhook deliveries failed; trying again');
      }
      if (!this.running) break;
      this.waitingForSlots = more;
      await this.sleep(options.pollIntervalMs);
      this.waitingForSlots = false;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  private launch(delivery: ClaimedDelivery): void {
    count(this.inFlightByOrganization, delivery.organizationId, +1);
    count(this.inFlightBySubscription, delivery.subscriptionId, +1);
    const task = this.attempt(delivery).finally(() => {
      this.inFlight.delete(delivery.id);
      count(this.inFlightByOrganization, delivery.organizationId, -1);
      count(this.inFlightBySubscription, delivery.subscriptionId, -1);
      // claim again once a batch worth of slots came free, not for every single one
      this.completedSinceClaim++;
      const batch = Math.max(1, Math.floor(this.deps.options.concurrency / 8));
      if (this.waitingForSlots && (this.completedSinceClaim >= batch || this.inFlight.size === 0)) this.wake();
    });
    this.inFlight.set(delivery.id, task);
  }

  /** The slot is held until the outcome is recorded: a database that cannot keep up slows claiming down. */
  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { deliverer, clock, options, random, logger } = this.deps;
    let result: AttemptResult;
    try {
      result = await deliverer.attempt(delivery, clock.now());
    } catch (error) {
      logger.error({ err: error, deliveryId: delivery.id }, 'webhook attempt failed on our side');
      result = {
        outcome: {
          statusCode: null,
          durationMs: 0,
          error: `internal error: ${(error as Error).message}`,
          responseExcerpt: null,
        },
        unsealable: false,
        reachedEndpoint: false,
      };
    }
    this.finished.push({
      delivery,
      result,
      recorded: afterAttempt(delivery, result, clock.now(), options.retryDelaysSeconds, random),
    });
    await this.flushSoon();
  }

  /** Batches outcomes: whoever arrives while a flush runs is written by the next one. */
  private async flushSoon(): Promise<void> {
    while (this.finished.length > 0) {
      if (this.flushing) {
        await this.flushing;
        continue;
      }
      if (this.finished.length < RECORD_BATCH) await new Promise((r) => setImmediate(r)); // let the batch fill a little
      if (this.flushing) continue;
      this.flushing = this.flush().finally(() => (this.flushing = undefined));
      await this.flushing;
    }
  }

  private async flush(): Promise<void> {
    const batch = this.finished.splice(0);
    if (batch.length === 0) return;
    const { repository, clock, options, logger } = this.deps;
    const now = clock.now();
    try {
      await repository.recordAttempts(
        batch.map((f) => f.recorded),
        now,
      );
      await repository.updateBreakers(
        breakerChanges(batch),
        options.breakerThreshold,
        new Date(now.getTime() + options.breakerCooldownMs),
      );
      for (const { delivery, result } of batch) {
        if (result.unsealable) {
          await repository.disableSubscription(
            delivery.subscriptionId,
            `${capitalized(result.outcome.error!)} at ${now.toISOString()}; rotate the secret, then resume the subscription`,
            now,
          );
        } else if (result.outcome.statusCode === 410) {
          await repository.disableSubscription(
            delivery.subscriptionId,
            `The endpoint answered 410 Gone at ${now.toISOString()}`,
            now,
          );
        }
      }
    } catch (error) {
      // not recorded: the leases run out and these deliveries are attempted again
      logger.error({ err: error, deliveries: batch.length }, 'recording webhook attempts failed');
      return;
    }
    for (const { delivery, recorded } of batch) {
      logger.debug(
        {
          deliveryId: delivery.id,
          status: recorded.status,
          statusCode: recorded.statusCode,
          nextAttemptAt: recorded.nextAttemptAt,
        },
        'webhook attempt recorded',
      );
    }
  }
}

function count(counts: Map<string, number>, key: string, change: number): void {
  const value = (counts.get(key) ?? 0) + change;
  if (value > 0) counts.set(key, value);
  else counts.delete(key);
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Per subscription, in the order the attempts finished: a success resets the count of failures in a row. */
export function breakerChanges(batch: Array<{ delivery: ClaimedDelivery; result: AttemptResult }>): BreakerChange[] {
  const changes = new Map<string, BreakerChange>();
  for (const { delivery, result } of batch) {
    if (!result.reachedEndpoint) continue;
    const change = changes.get(delivery.subscriptionId) ?? {
      subscriptionId: delivery.subscriptionId,
      reset: false,
      failures: 0,
    };
    if (isSuccess(result.outcome.statusCode)) {
      change.reset = true;
      change.failures = 0;
    } else change.failures++;
    changes.set(delivery.subscriptionId, change);
  }
  return [...changes.values()];
}
