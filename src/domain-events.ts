// Every module's domain event catalog, from the manifests (src/modules.ts). Each module owns its file
// (`<domain>.domain-events.ts`); the public kinds among them are the contract's `webhooks:` section
// (webhook.catalog.ts).
import { modules, type AppModule } from './modules.ts';
import type { EventsOf, ModuleManifest, UnionToIntersection } from './shared/module-manifest.ts';

type ModuleEventCatalog = EventsOf<AppModule>;

export const moduleEventCatalogs: readonly ModuleEventCatalog[] = (modules as readonly ModuleManifest[]).flatMap((m) =>
  m.events ? [m.events as ModuleEventCatalog] : [],
);

export const domainEventCatalog = Object.assign({}, ...moduleEventCatalogs) as UnionToIntersection<ModuleEventCatalog>;
