// Every job type: name -> payload, retry policy, schedule, from the module manifests (src/modules.ts).
// Services and the queue import this (for enqueue's types and the queues to create); it builds no handler and needs no container, so the API
// process can enqueue without loading what the jobs run. Handlers are bound in registry.ts.
import type { Config } from '../config.ts';
import { modules, type AppModule } from '../modules.ts';
import type { BoundJob, JobsOf, ModuleManifest } from '../shared/module-manifest.ts';
import { queueSpecOf, type AnyJobType, type QueueSpec } from './job.ts';

type BoundJobs = JobsOf<AppModule>;

/** Each module's job types with the container's part their handlers need (registry.ts binds them), in the list's order. */
export const boundJobs: readonly BoundJobs[] = (modules as readonly ModuleManifest[]).flatMap((m) => (m.jobs ?? []) as readonly BoundJob[] as readonly BoundJobs[]);

export const jobTypes: readonly JobTypes[] = boundJobs.map((job) => job.type);

type JobTypes = BoundJobs['type'];

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
