import { defineJob } from '../../jobs/job.ts';
import type { WebhookDeliveryService } from './webhook-delivery.service.ts';
import { DELIVER_JOB, type DeliverJobData } from './webhook.deliverer.ts';

/**
 * The deliveries table is the delivery queue (webhook.dispatcher.ts); a `webhook.deliver` job, still
 * queued with each new delivery, only wakes the dispatcher of the instance that runs it when that
 * delivery is still pending. The dispatcher finds due deliveries on its own within its polling
 * interval anyway, so these jobs can go once nothing queues them.
 */
export const webhookDeliveryJob = (dispatcher: { nudge(deliveryId: string): Promise<void> }) =>
  defineJob<DeliverJobData>({
    name: DELIVER_JOB,
    handler: (data) => dispatcher.nudge(data.deliveryId),
    retryLimit: 10,
    retryDelaySeconds: 5,
    retryBackoff: true,
    expireInSeconds: 60,
    batchSize: 50,
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
