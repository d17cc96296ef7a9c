// Binds every job type's handler to its dependencies. Imported only by processes that run jobs
// (src/worker.ts, src/main.ts when JOBS_ENABLED, tests with workers); nothing in the container
// imports it, so the composition root and the jobs no longer import each other.
import type { Container } from '../container.ts';
import { boundJobs, type JobDeps } from './catalog.ts';
import type { JobHandlers } from './queue.ts';

/**
 * Each job type's dependencies, picked from the container by its module's manifest. Every job in the
 * catalog comes with them (`bindJob` in the manifest checks them against the handler's at compile time).
 */
export function jobDependencies(c: Container): JobDeps {
  return Object.fromEntries(boundJobs.map((job) => [job.type.name, job.deps(c)])) as JobDeps;
}

export function jobHandlers(c: Container): JobHandlers {
  return Object.fromEntries(boundJobs.map((job) => [job.type.name, job.type.handler(job.deps(c) as never)])) as JobHandlers;
}

/** Registers every handler on the container's queue; call before queue.start({ workers: true }). */
export function registerJobHandlers(c: Container): void {
  c.queue.register(jobHandlers(c));
}
