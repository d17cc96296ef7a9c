// A module announces what it brings in one typed manifest (`modules/<domain>/<domain>.module.ts`),
// and src/modules.ts lists the manifests. The manifest also says what the module depends on (`uses`:
// the other modules whose public services it takes; the platform services it reads from its context)
// and builds its own services, routes, job handlers and subscribers from that context. Nothing else
// wires a module: the composition root (src/container.ts) only builds the platform and walks the list.
// This file imports no module list, no app and no container, so every module may import it.
import type { Config } from '../config.ts';
import type { DirectoryTokenVerifier, SurfaceRoutes } from '../http/surfaces/surface-routes.ts';
import type { IdempotencyMiddleware } from '../http/idempotency.ts';
import type { AnthropicClient } from '../integrations/anthropic/anthropic.client.ts';
import type { Embedder } from '../integrations/embeddings/embedder.ts';
import type { Mailer } from '../integrations/mail/mailer.ts';
import type { FileStorage } from '../integrations/storage/file-storage.ts';
import type { AnyJobType, JobHandler } from '../jobs/job.ts';
import type { Pipelines } from '../jobs/pipeline/pipelines.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Sequelize } from 'sequelize';
import type { Permission } from './access/policy.ts';
import type { Clock } from './clock.ts';
import type { Database } from './database.ts';
import type { DnsLookup } from './dns-lookup.ts';
import type { EventCatalog, Subscriber } from './domain-events/domain-event.ts';
import type { DomainEvents } from './domain-events/domain-events.ts';
import type { ErrorCode } from './errors.ts';
import type { Logger } from './logger.ts';
import type { CounterStore, RateLimiter } from './rate-limiter.ts';
import type { Sql } from './sql.ts';

/** What the composition root builds before any module: shared infrastructure, no domain logic. */
export interface Platform {
  config: Config;
  logger: Logger;
  clock: Clock;
  db: Database;
  sql: Sql;
  queue: JobQueue;
  /** The domain event outbox: modules publish into it, subscribers of other modules react. */
  domainEvents: DomainEvents;
  /** Step state for long pipelines (runPipeline). */
  pipelines: Pipelines;
  limiter: RateLimiter;
  counterStore: CounterStore;
  /** Library files: local disk or S3-compatible storage. */
  storage: FileStorage;
  /** Text embeddings for the AI's retrieval (loaded on first use, in the process that embeds). */
  embedder: Embedder;
  /** One Claude client (ANTHROPIC_API_KEY) for chat answers and podcast scripts, when configured. */
  anthropic?: AnthropicClient;
  /** SMTP, when SMTP_URL is set; without it mail stays in the outbox. */
  mailer?: Mailer;
  /** DNS for outbound targets (tests stub it instead of sending traffic to private addresses). */
  dnsLookup: DnsLookup;
  /** What every module declares a user owns (its manifest's `ownedUserData`), for deletion and transfer. */
  ownedUserData: readonly OwnedUserData[];
  /** A key derived from APP_SECRET for one purpose. */
  deriveKey(purpose: string): Buffer;
  /** Registers cleanup run by the container's close() (a child process, a cache). */
  onClose(cleanup: () => Promise<void> | void): void;
}

export type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;

/** The public services of a manifest (what its `services` factory returns). */
export type ServicesOf<M> = M extends { services: (context: never) => infer S } ? S : object;
/** The services of the modules a module uses, as one object. */
export type UsedServices<U extends readonly unknown[]> = [U[number]] extends [never]
  ? object
  : UnionToIntersection<ServicesOf<U[number]>>;

/** What a module's services factory gets: the platform and the public services of the modules it uses. */
export interface ServiceContext<U> {
  platform: Platform;
  uses: U;
}

/** What its routes, job handlers and subscribers get: the above and its own services. */
export interface ModuleContext<S, U> extends ServiceContext<U> {
  services: S;
}

/** Route factories also get the shared Idempotency-Key middleware. */
export interface RouteContext<S, U> extends ModuleContext<S, U> {
  idempotency: IdempotencyMiddleware;
}

/** Per surface, the module's routes, built from its context (see http/surfaces/). */
export type ModuleRoutes<S, U> = { [K in keyof SurfaceRoutes]?: (context: RouteContext<S, U>) => SurfaceRoutes[K] };

export interface ModelClass {
  initModel(sequelize: Sequelize): unknown;
}

/** A job type bound to its handler's dependencies (`bindJob` checks them against the handler's at compile time). */
export interface JobBinding {
  type: AnyJobType;
  handler: () => JobHandler<object>;
}

export const bindJob = <J extends AnyJobType>(type: J, deps: Parameters<J['handler']>[0]): JobBinding => ({
  type,
  handler: () => type.handler(deps) as JobHandler<object>,
});

/** Rows naming a user, for the deletion warnings; transferable ones move to another user, the rest is history. */
export interface OwnedUserData {
  type: string;
  description: string;
  table: string;
  column: string;
  transferable: boolean;
  /** Appended to the bound user id (e.g. `::text` for a text column). */
  cast?: string;
  /**
   * The rows' organization column, for rows that link the user only while they belong to it: moved to
   * another organization (or made a platform admin), the user is unlinked from the old one's rows.
   */
  unlinkOutside?: string;
}

/** What a module declares about itself: the facts the catalogs are derived from, without building anything. */
export interface ModuleFacts {
  /** The folder's name under src/modules. */
  name: string;
  /** Sequelize models by the name the container exposes them under (`container.models.User`). */
  models?: Readonly<Record<string, ModelClass>>;
  /** Associations among this module's own models, run once every model is initialised. */
  associate?: () => void;
  /** Its job types: the catalog (queues, schedules) is derived from them without building a handler. */
  jobs?: readonly AnyJobType[];
  /** The domain event kinds it announces (public ones are webhooks and need an openapi.yaml entry). */
  events?: EventCatalog;
  /** Permissions of the access policy its services check (declared here, granted in shared/access/policy.ts). */
  permissions?: readonly Permission[];
  /** Error codes it owns (declared here, defined in shared/errors.ts). */
  errors?: readonly ErrorCode[];
  ownedUserData?: readonly OwnedUserData[];
}

/** How a module is built: what it uses, its services, and what it hangs on the surfaces, the queue and the outbox. */
export interface ModuleWiring<U extends readonly unknown[], S> {
  /** The modules whose public services this one takes (listed before it in src/modules.ts). */
  uses?: U;
  /** Builds the module's public services, once, from the platform and the services it uses. */
  services?: (context: ServiceContext<UsedServices<U>>) => S;
  routes?: ModuleRoutes<S, UsedServices<U>>;
  /** Binds each of its job types to its handler's dependencies; only processes that run jobs call it. */
  handlers?: (context: ModuleContext<S, UsedServices<U>>) => readonly JobBinding[];
  /** The SCIM surface's credential check (the module that owns directories). */
  scimTokens?: (context: ModuleContext<S, UsedServices<U>>) => DirectoryTokenVerifier;
  /** Its reactions to other modules' events, subscribed once every module is built. */
  subscribers?: (context: ModuleContext<S, UsedServices<U>>) => Subscriber[];
}

// biome-ignore lint/suspicious/noExplicitAny: any module's services, as the root walks the list
type AnyServices = any;

/** Any module, as the composition root walks the list (each factory's context is checked where it is defined). */
export interface ModuleManifest extends ModuleFacts {
  uses?: readonly unknown[];
  services?: (context: ServiceContext<AnyServices>) => object;
  routes?: { [K in keyof SurfaceRoutes]?: (context: RouteContext<AnyServices, AnyServices>) => SurfaceRoutes[K] };
  handlers?: (context: ModuleContext<AnyServices, AnyServices>) => readonly JobBinding[];
  scimTokens?: (context: ModuleContext<AnyServices, AnyServices>) => DirectoryTokenVerifier;
  subscribers?: (context: ModuleContext<AnyServices, AnyServices>) => Subscriber[];
}

/**
 * Keeps the literal types (job names, model names, event kinds) the derived catalogs are typed by, and
 * types each factory's context: `uses` gives the other modules' services, `services` the module's own.
 */
export const defineModule = <
  const U extends readonly unknown[] = [],
  S = object,
  const M extends ModuleFacts = ModuleFacts,
>(
  manifest: M & ModuleWiring<U, S>,
): M & ModuleWiring<U, S> & { services: (context: ServiceContext<UsedServices<U>>) => S } =>
  manifest as M & ModuleWiring<U, S> & { services: (context: ServiceContext<UsedServices<U>>) => S };

export type ModelsOf<M> = M extends { models: infer X } ? X : never;
export type JobsOf<M> = M extends { jobs: readonly (infer J)[] } ? J : never;
export type EventsOf<M> = M extends { events: infer E } ? E : never;

/** A module of the list with the context its factories were called with. */
export interface BuiltModule {
  manifest: ModuleManifest;
  context: ModuleContext<object, object>;
}

/**
 * Builds each module in the list's order: its services from the platform and the services of the
 * modules it uses (listed before it), then subscribes every module's subscribers once all exist.
 */
export function buildModules(
  list: readonly ModuleManifest[],
  platform: Platform,
): { services: Record<string, unknown>; built: BuiltModule[] } {
  const services: Record<string, unknown> = {};
  const built: BuiltModule[] = [];
  const servicesByModule = new Map<ModuleManifest, object>();
  const servicesOf = (user: ModuleManifest, used: ModuleManifest): object => {
    const own = servicesByModule.get(used);
    if (!own) throw new Error(`Module ${user.name} uses ${used.name}, which the module list names after it`);
    return own;
  };
  for (const manifest of list) {
    const uses: object = Object.assign(
      {},
      ...(manifest.uses ?? []).map((used) => servicesOf(manifest, used as ModuleManifest)),
    );
    const own = manifest.services?.({ platform, uses }) ?? {};
    for (const name of Object.keys(own)) {
      if (name in services) throw new Error(`Service ${name} is built by two modules`);
    }
    Object.assign(services, own);
    servicesByModule.set(manifest, own);
    built.push({ manifest, context: { platform, uses, services: own } });
  }
  for (const { manifest, context } of built) {
    for (const subscriber of manifest.subscribers?.(context) ?? []) platform.domainEvents.subscribe(subscriber);
  }
  return { services, built };
}
