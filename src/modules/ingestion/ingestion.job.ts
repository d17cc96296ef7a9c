import { defineJob, payloadOf } from '../../jobs/job.ts';
import type { IngestionRunner } from './ingestion.pipeline.ts';

// the payload enqueue() takes for this name (see jobs/job.ts: JobPayloads)
declare module '../../jobs/job.ts' {
  interface JobPayloads {
    'ingestion.run': { runId: string };
  }
}

/**
 * One ingestion run (extract -> embed -> activate, see ingestion.pipeline.ts). A failed step is retried
 * with backoff and resumes at that step; an hour covers embedding a long document on a small worker.
 */
export const ingestionRunJob = defineJob({
  name: 'ingestion.run',
  payload: payloadOf<{ runId: string }>(),
  retry: { limit: 5, delaySeconds: 30, backoff: true },
  expireInSeconds: 60 * 60,
  handler:
    (deps: { runner: IngestionRunner }) =>
    async ({ runId }) => {
      await deps.runner.run(runId);
    },
});
