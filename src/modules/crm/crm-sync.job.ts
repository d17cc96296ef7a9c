import { defineJob, payloadOf } from '../../jobs/job.ts';

declare module '../../jobs/job.ts' {
  interface JobPayloads {
    'crm.sync': { organizationId: string };
    'crm.purge': object;
  }
}

/**
 * Drains one organization's CRM queue (crm-sync.service.ts). One per member change or "sync now";
 * a job that finds another run holding the organization's lease leaves the work to it.
 */
export const crmSyncJob = defineJob({
  name: 'crm.sync',
  payload: payloadOf<{ organizationId: string }>(),
  retry: { limit: 5, delaySeconds: 30, backoff: true },
  // a run hands over after 10 minutes; this is the queue's bound if a worker dies mid-run
  expireInSeconds: 15 * 60,
  handler: (sync: { run(organizationId: string): Promise<void> }) => (data) => sync.run(data.organizationId),
});

/** The burst budget's call log and expired connection states are never read again. */
export const crmPurgeJob = defineJob({
  name: 'crm.purge',
  payload: payloadOf<object>(),
  schedule: '*/10 * * * *',
  retry: { limit: 1, delaySeconds: 10, backoff: false },
  handler: (deps: { purge(): Promise<void> }) => () => deps.purge(),
});
