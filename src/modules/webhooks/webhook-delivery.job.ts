import { defineJob } from '../../jobs/job.ts';
import type { WebhookDeliveryService } from './webhook-delivery.service.ts';
import { DELIVER_JOB, type DeliverJobData, type WebhookDeliverer } from './webhook.deliverer.ts';

/**
 * One attempt per job. A receiver's failure is not a job failure: the deliverer records it and
 * queues the next attempt on the webhook retry schedule. The queue's own retries cover only our
 * side failing (the database unreachable mid-attempt).
 */
export const webhookDeliveryJob = (deliverer: WebhookDeliverer) =>
  defineJob<DeliverJobData>({
    name: DELIVER_JOB,
    handler: (data) => deliverer.deliver(data),
    retryLimit: 10,
    retryDelaySeconds: 5,
    retryBackoff: true,
    expireInSeconds: 120,
    concurrency: 4,
  });

/** Finished deliveries are kept 30 days, then removed with their attempts and orphaned events. */
export const webhookPurgeJob = (deliveries: WebhookDeliveryService, now: () => Date) =>
  defineJob({
    name: 'webhook.purge',
    schedule: '23 3 * * *',
    retryLimit: 1,
    handler: async (_data, { logger }) => {
      const purged = await deliveries.purgeFinishedBefore(new Date(now().getTime() - 30 * 86400_000));
      logger.info({ purged }, 'purged old webhook deliveries');
    },
  });
