import { defineJob, payloadOf } from '../../../jobs/job.ts';
import type { UploadService } from './upload.service.ts';

// the payload enqueue() takes for this name (see jobs/job.ts: JobPayloads)
declare module '../../../jobs/job.ts' {
  interface JobPayloads {
    'library.uploads-expire': object;
  }
}

/** Removes resumable uploads past LIBRARY_UPLOAD_EXPIRY_HOURS: unfinished ones, and finished ones never taken. */
export const uploadExpiryJob = defineJob({
  name: 'library.uploads-expire',
  payload: payloadOf<object>(),
  schedule: '*/15 * * * *',
  retry: { limit: 1, delaySeconds: 30, backoff: false },
  handler:
    (uploads: UploadService) =>
    async (_data, { logger }) => {
      const removed = await uploads.removeExpired();
      if (removed > 0) logger.info({ removed }, 'removed expired resumable uploads');
    },
});
