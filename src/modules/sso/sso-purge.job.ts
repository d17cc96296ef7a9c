import { defineJob, payloadOf } from '../../jobs/job.ts';
import type { SsoSingleUseStore } from './sso-single-use.store.ts';

declare module '../../jobs/job.ts' {
  interface JobPayloads {
    'sso.purge': object;
  }
}

/** Login states, one-time codes and remembered assertion ids past their expiry can never be used again. */
export const ssoPurgeJob = defineJob({
  name: 'sso.purge',
  payload: payloadOf<object>(),
  schedule: '23 * * * *',
  retry: { limit: 1, delaySeconds: 10, backoff: false },
  handler:
    (deps: { store: SsoSingleUseStore }) =>
    async (_data, { logger }) => {
      logger.debug({ purged: await deps.store.purgeExpired() }, 'purged expired SSO login records');
    },
});
