import { defineJob, payloadOf } from '../../jobs/job.ts';
import { GENERATION_JOBS, type GenerationJob } from './generation.service.ts';
import type { GenerationWorker } from './generation.worker.ts';

// the payload enqueue() takes for this name (see jobs/job.ts: JobPayloads)
declare module '../../jobs/job.ts' {
  interface JobPayloads {
    [GENERATION_JOBS.podcast]: GenerationJob;
    [GENERATION_JOBS.infographic]: GenerationJob;
  }
}

// Speech and rendering are CPU-bound: one at a time per worker process. A failed run is retried twice
// (a worker that died mid-run, a full disk); the record shows `failed` and its error in between, and a
// client admin may ask again at any time (a new run; the old job then finds itself superseded).
const retry = { limit: 2, delaySeconds: 60, backoff: true };

export const podcastJob = defineJob({
  name: GENERATION_JOBS.podcast,
  payload: payloadOf<GenerationJob>(),
  retry,
  expireInSeconds: 30 * 60,
  handler: (worker: GenerationWorker) => (data, context) => worker.podcast(data, context),
});

export const infographicJob = defineJob({
  name: GENERATION_JOBS.infographic,
  payload: payloadOf<GenerationJob>(),
  retry,
  expireInSeconds: 10 * 60,
  handler: (worker: GenerationWorker) => (data, context) => worker.infographic(data, context),
});
