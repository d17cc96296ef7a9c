import { defineJob, payloadOf } from '../../jobs/job.ts';
import type { Clock } from '../clock.ts';
import { DELIVER_EVENT_JOB, type DeliverEventJob, type DomainEvents } from './domain-events.ts';

// the payload enqueue() takes for this name (see jobs/job.ts: JobPayloads)
declare module '../../jobs/job.ts' {
  interface JobPayloads {
    [DELIVER_EVENT_JOB]: DeliverEventJob;
    'domain-events.purge': object;
  }
}

/** One event to one job subscriber (`DomainEvents.deliver`); a failure is retried with backoff. */
export const domainEventDeliverJob = defineJob({
  name: DELIVER_EVENT_JOB,
  payload: payloadOf<DeliverEventJob>(),
  retry: { limit: 10, delaySeconds: 10, backoff: true },
  concurrency: 2,
  handler: (events: DomainEvents) => (data, context) => events.deliver(data, context),
});

/**
 * Events are kept DOMAIN_EVENTS_RETENTION_DAYS (30 by default), far longer than any subscriber job
 * retries, then removed with their receipts.
 */
export const domainEventsPurgeJob = defineJob({
  name: 'domain-events.purge',
  payload: payloadOf<object>(),
  schedule: '37 3 * * *',
  retry: { limit: 1, delaySeconds: 60, backoff: false },
  handler:
    (deps: { events: DomainEvents; clock: Clock; retentionDays: number }) =>
    async (_data, { logger }) => {
      const purged = await deps.events.purgeBefore(
        new Date(deps.clock.now().getTime() - deps.retentionDays * 86400_000),
      );
      logger.info({ purged }, 'purged old domain events');
    },
});
