import { defineJob, payloadOf } from '../../../jobs/job.ts';
import type { JobContext } from '../../../jobs/job.ts';

declare module '../../../jobs/job.ts' {
  interface JobPayloads {
    'idp.event': { eventId: string };
  }
}

/**
 * Processes one identity-service webhook event, recorded by POST /webhooks/idp in the same transaction
 * (idp_webhook_events). A failure is recorded on the event and its directory and retried with backoff;
 * an event already processed is skipped, so a redelivered job changes nothing.
 */
export const idpEventJob = defineJob({
  name: 'idp.event',
  payload: payloadOf<{ eventId: string }>(),
  retry: { limit: 5, delaySeconds: 10, backoff: true },
  expireInSeconds: 5 * 60,
  handler:
    (events: { process(eventId: string, logger: JobContext['logger']): Promise<void> }) =>
    (data, { logger }) =>
      events.process(data.eventId, logger),
});
