import { defineJob, payloadOf } from '../../jobs/job.ts';
import type { IdempotencyStore } from './idempotency.store.ts';

// the payload enqueue() takes for this name (see jobs/job.ts: JobPayloads)
declare module '../../jobs/job.ts' {
  interface JobPayloads {
    'idempotency.purge': object;
  }
}

export const idempotencyPurgeJob = defineJob({
  name: 'idempotency.purge',
  payload: payloadOf<object>(),
  schedule: '41 * * * *',
  retry: { limit: 1, delaySeconds: 10, backoff: false },
  handler:
    (store: IdempotencyStore) =>
    async (_data, { logger }) => {
      logger.debug({ purged: await store.purgeExpired() }, 'purged expired idempotency keys');
    },
});
