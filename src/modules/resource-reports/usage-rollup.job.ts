import { defineJob, payloadOf } from '../../jobs/job.ts';
import type { Clock } from '../../shared/clock.ts';
import type { UsageRollup } from './usage-rollup.repository.ts';

// the payload enqueue() takes for this name (see jobs/job.ts: JobPayloads)
declare module '../../jobs/job.ts' {
  interface JobPayloads {
    'resource-usage.rollup': object;
  }
}

/**
 * Rolls the usage events up into whole days. Reports do not wait for it (they read raw events after
 * the watermark), so twice an hour keeps the raw part of a report down to about today.
 */
export const usageRollupJob = defineJob({
  name: 'resource-usage.rollup',
  payload: payloadOf<object>(),
  schedule: '4,34 * * * *',
  retry: { limit: 3, delaySeconds: 60, backoff: true },
  expireInSeconds: 30 * 60,
  handler:
    (deps: { rollup: UsageRollup; clock: Clock }) =>
    async (_data, { logger }) => {
      const result = await deps.rollup.refresh(deps.clock.now());
      logger.info({ ...result }, 'rolled up resource usage');
    },
});
