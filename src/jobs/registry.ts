// Binds every job type's handler to its dependencies, through the module that declares it (its
// manifest's `handlers`). Imported only by processes that run jobs (src/worker.ts, src/main.ts when
// JOBS_ENABLED, tests with workers), so the API process never builds what the jobs run.
import type { AppContext } from '../app-context.ts';
import type { JobHandlers } from './queue.ts';

export function jobHandlers(app: Pick<AppContext, 'modules'>): JobHandlers {
  const handlers: Record<string, unknown> = {};
  for (const { manifest, context } of app.modules) {
    const bindings = manifest.handlers?.(context) ?? [];
    const bound = new Set(bindings.map((binding) => binding.type.name));
    const unbound = (manifest.jobs ?? []).filter((type) => !bound.has(type.name)).map((type) => type.name);
    if (unbound.length)
      throw new Error(`Module ${manifest.name} declares jobs it binds no handler for: ${unbound.join(', ')}`);
    for (const binding of bindings) {
      if (!manifest.jobs?.includes(binding.type))
        throw new Error(`Module ${manifest.name} binds ${binding.type.name}, a job it does not declare`);
      handlers[binding.type.name] = binding.handler();
    }
  }
  return handlers as JobHandlers;
}

/** Registers every handler on the queue; call before queue.start({ workers: true }). */
export function registerJobHandlers(app: Pick<AppContext, 'modules' | 'queue'>): void {
  app.queue.register(jobHandlers(app));
}
