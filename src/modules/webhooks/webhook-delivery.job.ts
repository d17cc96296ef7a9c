import { defineJob, payloadOf } from '../../jobs/job.ts';
import type { WebhookDeliveryService } from './webhook-delivery.service.ts';
import { DELIVER_JOB, type DeliverJobData, type WebhookDeliverer } from './webhook.deliverer.ts';

/**
 * One attempt per job. A receiver's failure is not a job failure: the deliverer records it and
 * queues the next attempt on the webhook retry schedule. The queue's own retries cover only our
 * side failing (the database unreachable mid-attempt).
 */
export const webhookDeliveryJob = defineJob({
  name: DELIVER_JOB,
  payload: payloadOf<DeliverJobData>(),
  handler: (deliverer: WebhookDeliverer) => (data) => deliverer.deliver(data),
  retry: { limit: 10, delaySeconds: 5, backoff: true },
  expireInSeconds: 120,
  concurrency: 4,
});

/** Finished deliveries are kept 30 days, then removed with their attempts and orphaned events. */
export const webhookPurgeJob = defineJob({
  name: 'webhook.purge',
  payload: payloadOf<object>(),
  schedule: '23 3 * * *',
  retry: { limit: 1, delaySeconds: 10, backoff: false },
  handler: (deps: { deliveries: WebhookDeliveryService; now: () => Date }) => async (_data, { logger }) => {
    const purged = await deps.deliveries.purgeFinishedBefore(new Date(deps.now().getTime() - 30 * 86400_000));
    logger.info({ purged }, 'purged old webhook deliveries');
  },
});
