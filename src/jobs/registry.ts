// Binds every job type's handler to its dependencies. Imported only by processes that run jobs
// (src/worker.ts, src/main.ts when JOBS_ENABLED, tests with workers); nothing in the container
// imports it, so the composition root and the jobs no longer import each other.
import type { Container } from '../container.ts';
import { jobTypes, type JobDeps } from './catalog.ts';
import type { JobHandlers } from './queue.ts';

/** Each job type's dependencies, picked from the container; the type fails to compile when one is missing. */
export function jobDependencies(c: Container): JobDeps {
  const { services, clock, config } = c;
  return {
    'mail.send': services.mail,
    'impersonation.close-expired': services.impersonation,
    'idempotency.purge': services.idempotency,
    'rate-limit.purge': { counterStore: c.counterStore, clock },
    'webhook.deliver': services.webhookDispatcher,
    'webhook.purge': { deliveries: services.webhookDeliveries, now: () => clock.now() },
    'domain-event.deliver': c.domainEvents,
    'domain-events.purge': { events: c.domainEvents, clock, retentionDays: config.domainEvents.retentionDays },
    'pipeline.purge': { pipelines: c.pipelines, clock, retentionDays: config.pipelines.retentionDays },
  };
}

export function jobHandlers(c: Container): JobHandlers {
  const deps: Record<string, unknown> = { ...jobDependencies(c) };
  return Object.fromEntries(jobTypes.map((type) => [type.name, type.handler(deps[type.name] as never)])) as JobHandlers;
}

/** Registers every handler on the container's queue; call before queue.start({ workers: true }). */
export function registerJobHandlers(c: Container): void {
  c.queue.register(jobHandlers(c));
}
