import { defineJob, payloadOf } from '../jobs/job.ts';
import type { Clock } from './clock.ts';
import { PostgresCounterStore, type CounterStore } from './rate-limiter.ts';

// the payload enqueue() takes for this name (see jobs/job.ts: JobPayloads)
declare module '../jobs/job.ts' {
  interface JobPayloads {
    'rate-limit.purge': object;
  }
}

/** Windows older than two hours are never read again; Redis expires its own keys. */
export const rateLimitPurgeJob = defineJob({
  name: 'rate-limit.purge',
  payload: payloadOf<object>(),
  schedule: '17 * * * *',
  retry: { limit: 1, delaySeconds: 10, backoff: false },
  handler:
    (deps: { counterStore: CounterStore; clock: Clock }) =>
    async (_data, { logger }) => {
      if (!(deps.counterStore instanceof PostgresCounterStore)) return;
      const cutoff = new Date(deps.clock.now().getTime() - 2 * 3600_000);
      logger.debug({ purged: await deps.counterStore.purgeBefore(cutoff) }, 'purged old rate-limit windows');
    },
});
