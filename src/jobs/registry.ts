// The one place every job type is registered.
import type { Container } from '../container.ts';
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
  ] as JobDefinition<object>[];
}
