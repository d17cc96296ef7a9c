// Every job type: name -> payload, retry policy, schedule. Services and the queue import this (for
// enqueue's types and the queues to create); it builds no handler and needs no container, so the API
// process can enqueue without loading what the jobs run. Handlers are bound in registry.ts.
import type { Config } from '../config.ts';
import { idempotencyPurgeJob } from '../modules/idempotency/idempotency-purge.job.ts';
import { impersonationCloseExpiredJob } from '../modules/impersonation/impersonation-close-expired.job.ts';
import { mailSendJob } from '../modules/mail/mail-send.job.ts';
import { webhookDeliveryJob, webhookPurgeJob } from '../modules/webhooks/webhook-delivery.job.ts';
import { domainEventDeliverJob, domainEventsPurgeJob } from '../shared/domain-events/domain-event-deliver.job.ts';
import { rateLimitPurgeJob } from '../shared/rate-limit-purge.job.ts';
import { queueSpecOf, type AnyJobType, type QueueSpec } from './job.ts';
import { pipelinePurgeJob } from './pipeline/pipeline-purge.job.ts';

/** Grouped by owner; a module manifest will contribute its own list. */
export const jobTypes = [
  mailSendJob,
  impersonationCloseExpiredJob,
  idempotencyPurgeJob,
  rateLimitPurgeJob,
  webhookDeliveryJob,
  webhookPurgeJob,
  domainEventDeliverJob,
  domainEventsPurgeJob,
  pipelinePurgeJob,
] as const;

type JobTypes = (typeof jobTypes)[number];

export type JobName = JobTypes['name'];

/** name -> payload, for enqueue. */
export type JobPayloads = { [J in JobTypes as J['name']]: J['payload'] };

/** name -> the dependencies its handler factory needs (registry.ts provides them). */
export type JobDeps = { [J in JobTypes as J['name']]: Parameters<J['handler']>[0] };

export const jobTypeByName = new Map<string, AnyJobType>(jobTypes.map((type) => [type.name, type]));

export function queueSpecs(config: Config, types: readonly AnyJobType[] = jobTypes): QueueSpec[] {
  const names = new Set<string>();
  return types.map((type) => {
    if (names.has(type.name)) throw new Error(`Job type ${type.name} is declared twice`);
    names.add(type.name);
    return queueSpecOf(type, config);
  });
}
