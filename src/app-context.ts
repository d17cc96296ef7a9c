// What the composition root (src/container.ts) hands the processes it serves: the platform, every
// module's public services under one name each, and the modules as built (each with its own context),
// from which the HTTP app mounts routes and the workers bind job handlers. Typed from the module list.
import type { Models } from './models.ts';
import type { AppModule } from './modules.ts';
import type { BuiltModule, Platform, ServicesOf, UnionToIntersection } from './shared/module-manifest.ts';

export type AppServices = UnionToIntersection<ServicesOf<AppModule>>;

export interface AppContext extends Platform {
  models: Models;
  services: AppServices;
  /** The modules in the list's order, as built. */
  modules: readonly BuiltModule[];
  close(): Promise<void>;
}
