import type { Clock } from '../../shared/clock.ts';
import { defineJob, payloadOf } from '../job.ts';
import type { Pipelines } from './pipelines.ts';

// the payload enqueue() takes for this name (see jobs/job.ts: JobPayloads)
declare module '../job.ts' {
  interface JobPayloads {
    'pipeline.purge': object;
  }
}

/** Finished runs (succeeded or given up) are kept PIPELINE_RUNS_RETENTION_DAYS, then removed with their steps. */
export const pipelinePurgeJob = defineJob({
  name: 'pipeline.purge',
  payload: payloadOf<object>(),
  schedule: '47 3 * * *',
  retry: { limit: 1, delaySeconds: 60, backoff: false },
  handler:
    (deps: { pipelines: Pipelines; clock: Clock; retentionDays: number }) =>
    async (_data, { logger }) => {
      const purged = await deps.pipelines.purgeFinishedBefore(
        new Date(deps.clock.now().getTime() - deps.retentionDays * 86400_000),
      );
      logger.info({ purged }, 'purged finished pipeline runs');
    },
});
