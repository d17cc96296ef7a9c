// Every job type: name -> payload, retry policy, schedule, from the module manifests (src/modules.ts).
// It builds no handler and needs no container, so the API process can create queues and enqueue
// without loading what the jobs run. Handlers are bound by each module (`handlers`, see registry.ts).
import type { Config } from '../config.ts';
import { modules, type AppModule } from '../modules.ts';
import type { JobsOf, ModuleManifest } from '../shared/module-manifest.ts';
import { queueSpecOf, type AnyJobType, type QueueSpec } from './job.ts';

type JobTypes = JobsOf<AppModule>;

/** Each module's job types, in the list's order. */
export const jobTypes: readonly JobTypes[] = (modules as readonly ModuleManifest[]).flatMap(
  (m) => (m.jobs ?? []) as readonly JobTypes[],
);

export type { JobName, JobPayloads } from './job.ts';

export const jobTypeByName = new Map<string, AnyJobType>(jobTypes.map((type) => [type.name, type]));

export function queueSpecs(config: Config, types: readonly AnyJobType[] = jobTypes): QueueSpec[] {
  const names = new Set<string>();
  return types.map((type) => {
    if (names.has(type.name)) throw new Error(`Job type ${type.name} is declared twice`);
    names.add(type.name);
    return queueSpecOf(type, config);
  });
}
