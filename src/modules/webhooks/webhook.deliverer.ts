// One attempt of one claimed delivery: re-check the target, unseal and sign, POST; then what the
// outcome means for the delivery (retry when, or done) and for the subscription (410, lost secret).
// The dispatcher (webhook.dispatcher.ts) claims deliveries and records these outcomes in batches.
import type { ClaimedDelivery, RecordedAttempt } from './webhook-delivery.repository.ts';
import { retryDelaySeconds } from './webhook.retry-schedule.ts';
import { UnsealableSecretError, type WebhookSecrets } from './webhook.secrets.ts';
import type { AttemptOutcome, WebhookSender } from './webhook.sender.ts';
import { signDelivery } from './webhook.signer.ts';
import type { ResolvedAddress } from '../../shared/dns-lookup.ts';
import type { WebhookTargetGuard } from './webhook.target-guard.ts';

/** Before the deliveries table became the queue, each attempt was a job; the name stays a wake-up call. */
export const DELIVER_JOB = 'webhook.deliver';

/** `attempt` is the delivery's attempt count when the job was queued. */
export interface DeliverJobData {
  deliveryId: string;
  attempt: number;
}

export interface AttemptResult {
  outcome: AttemptOutcome;
  /** The secret cannot be unsealed: the delivery fails for good and the subscription is disabled. */
  unsealable: boolean;
  /** Nothing was sent to the endpoint (refused by the guard, or no secret): the breaker is not told. */
  reachedEndpoint: boolean;
}

export interface WebhookDelivererDeps {
  guard: WebhookTargetGuard;
  secrets: WebhookSecrets;
  sender: WebhookSender;
  timeoutMs: number;
}

export const isSuccess = (status: number | null) => status !== null && status >= 200 && status < 300;
const notSent = (error: string, unsealable = false): AttemptResult => ({
  outcome: { statusCode: null, durationMs: 0, error, responseExcerpt: null },
  unsealable,
  reachedEndpoint: false,
});

export class WebhookDeliverer {
  constructor(private readonly deps: WebhookDelivererDeps) {}

  async attempt(delivery: ClaimedDelivery, now: Date): Promise<AttemptResult> {
    const { guard, secrets, sender, timeoutMs } = this.deps;
    let secretsNow: string[];
    try {
      secretsNow = secrets.signingSecrets(delivery, now);
    } catch (error) {
      if (error instanceof UnsealableSecretError) return notSent(error.message, true);
      throw error;
    }
    const url = new URL(delivery.url);
    let address: ResolvedAddress;
    try {
      address = await guard.resolve(url); // again now: the name may point elsewhere since it was saved
    } catch (error) {
      return notSent(`refused: ${(error as Error).message}`);
    }
    const headers = signDelivery(secretsNow, delivery.eventId, now, delivery.body);
    return {
      outcome: await sender.post(url, address, { ...headers }, delivery.body, timeoutMs),
      unsealable: false,
      reachedEndpoint: true,
    };
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.deps.sender.close();
  }
}

/** The delivery's row after this attempt: succeeded, failed for good, or pending with its next time. */
export function afterAttempt(
  delivery: ClaimedDelivery,
  result: AttemptResult,
  now: Date,
  delays: readonly number[],
  random?: () => number,
): RecordedAttempt {
  const { outcome } = result;
  const final = isSuccess(outcome.statusCode) || outcome.statusCode === 410 || result.unsealable;
  const failures = delivery.retryStep + 1;
  const delay = final ? null : retryDelaySeconds(failures, delays, random);
  return {
    deliveryId: delivery.id,
    claimedAttemptCount: delivery.attemptCount,
    status: isSuccess(outcome.statusCode) ? 'succeeded' : delay === null ? 'failed' : 'pending',
    retryStep: failures,
    nextAttemptAt: delay === null ? null : new Date(now.getTime() + delay * 1000),
    attemptedAt: now,
    ...outcome,
  };
}
