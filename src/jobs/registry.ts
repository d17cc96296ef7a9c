// The one place every job type is registered.
import type { Container } from '../container.ts';
import { SEND_MAIL_JOB, type SendMailJob } from '../modules/mail/mail.service.ts';
import { webhookDeliveryJob, webhookPurgeJob } from '../modules/webhooks/webhook-delivery.job.ts';
import { PostgresCounterStore } from '../shared/rate-limiter.ts';
import { defineJob, type JobDefinition } from './job.ts';

export function jobDefinitions(container: Container): JobDefinition<object>[] {
  return [
    defineJob({
      name: 'rate-limit.purge',
      schedule: '17 * * * *',
      retryLimit: 1,
      handler: async (_data, { logger }) => {
        if (!(container.counterStore instanceof PostgresCounterStore)) return;
        const cutoff = new Date(container.clock.now().getTime() - 2 * 3600_000);
        logger.debug({ purged: await container.counterStore.purgeBefore(cutoff) }, 'purged old rate-limit windows');
      },
    }),
    defineJob<SendMailJob>({
      name: SEND_MAIL_JOB,
      retryLimit: container.config.mail.retryLimit,
      retryDelaySeconds: container.config.mail.retryDelaySeconds,
      retryBackoff: true,
      handler: (data, { attempt }) => container.services.mail.deliver(data, attempt),
    }),
    defineJob({
      // expiry ends a session too: this records the end of sessions nobody exited
      name: 'impersonation.close-expired',
      schedule: '* * * * *',
      retryLimit: 1,
      handler: async (_data, { logger }) => {
        const closed = await container.services.impersonation.closeExpired();
        if (closed) logger.info({ closed }, 'closed expired impersonation sessions');
      },
    }),
    webhookDeliveryJob(container.services.webhookDispatcher),
    webhookPurgeJob(container.services.webhookDeliveries, () => container.clock.now()),
    defineJob({
      name: 'idempotency.purge',
      schedule: '41 * * * *',
      retryLimit: 1,
      handler: async (_data, { logger }) => {
        logger.debug({ purged: await container.services.idempotency.purgeExpired() }, 'purged expired idempotency keys');
      },
    }),
  ] as JobDefinition<object>[];
}
