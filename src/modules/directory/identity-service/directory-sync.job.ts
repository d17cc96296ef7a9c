import { defineJob, payloadOf } from '../../../jobs/job.ts';

declare module '../../../jobs/job.ts' {
  interface JobPayloads {
    'directory.sync': { runId: string };
  }
}

/** Runs one pull sync of a brokered directory (POST /api/directories/{id}/sync answers with the queued run). */
export const directorySyncJob = defineJob({
  name: 'directory.sync',
  payload: payloadOf<{ runId: string }>(),
  retry: { limit: 2, delaySeconds: 30, backoff: true },
  handler: (sync: { run(runId: string): Promise<void> }) => (data) => sync.run(data.runId),
});
