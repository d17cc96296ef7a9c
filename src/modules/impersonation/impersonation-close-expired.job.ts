import { defineJob, payloadOf } from '../../jobs/job.ts';
import type { ImpersonationService } from './impersonation.service.ts';

// the payload enqueue() takes for this name (see jobs/job.ts: JobPayloads)
declare module '../../jobs/job.ts' {
  interface JobPayloads {
    'impersonation.close-expired': object;
  }
}

/**
 * Expiry ends a session too: this records the end of sessions nobody exited, and ends those whose
 * parties stopped meeting the start rules through a change the model hooks did not see.
 */
export const impersonationCloseExpiredJob = defineJob({
  name: 'impersonation.close-expired',
  payload: payloadOf<object>(),
  schedule: '* * * * *',
  retry: { limit: 1, delaySeconds: 10, backoff: false },
  handler:
    (impersonation: ImpersonationService) =>
    async (_data, { logger }) => {
      const closed = await impersonation.closeExpired();
      if (closed) logger.info({ closed }, 'closed expired impersonation sessions');
      const revoked = await impersonation.endRevokedSessions();
      if (revoked) logger.info({ revoked }, 'ended impersonation sessions whose admin or target changed');
    },
});
