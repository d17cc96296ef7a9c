import { defineJob, payloadOf } from '../../jobs/job.ts';
import type { WebhookDeliveryService } from './webhook-delivery.service.ts';
import { DELIVER_JOB, type DeliverJobData } from './webhook.deliverer.ts';

// the payload enqueue() takes for this name (see jobs/job.ts: JobPayloads)
declare module '../../jobs/job.ts' {
  interface JobPayloads {
    [DELIVER_JOB]: DeliverJobData;
    'webhook.purge': object;
  }
}

/**
 * The deliveries table is the delivery queue (webhook.dispatcher.ts); a `webhook.deliver` job, still
 * queued with each new delivery, only wakes the dispatcher of the instance that runs it when that
 * delivery is still pending. The dispatcher finds due deliveries on its own within its polling
 * interval anyway, so these jobs can go once nothing queues them.
 */
export const webhookDeliveryJob = defineJob({
  name: DELIVER_JOB,
  payload: payloadOf<DeliverJobData>(),
  handler: (dispatcher: { nudge(deliveryId: string): Promise<void> }) => (data) => dispatcher.nudge(data.deliveryId),
  retry: { limit: 10, delaySeconds: 5, backoff: true },
  expireInSeconds: 60,
  batchSize: 50,
});

/** Finished deliveries are kept 30 days, then removed with their attempts and orphaned events. */
export const webhookPurgeJob = defineJob({
  name: 'webhook.purge',
  payload: payloadOf<object>(),
  schedule: '23 3 * * *',
  retry: { limit: 1, delaySeconds: 10, backoff: false },
  handler:
    (deps: { deliveries: WebhookDeliveryService; now: () => Date }) =>
    async (_data, { logger }) => {
      const purged = await deps.deliveries.purgeFinishedBefore(new Date(deps.now().getTime() - 30 * 86400_000));
      logger.info({ purged }, 'purged old webhook deliveries');
    },
});
