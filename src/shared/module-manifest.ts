// A module announces what it brings in one typed manifest (`modules/<domain>/<domain>.module.ts`),
// and src/modules.ts lists the manifests. The models, the surface routes, the job catalog and its
// handlers' dependencies, the domain event catalog, the subscribers and the data a user owns are
// derived from that one list. No discovery: a module not in the list does not exist.
import type { Sequelize } from 'sequelize';
import type { SurfaceRoutes } from '../app.ts';
import type { Container } from '../container.ts';
import type { IdempotencyMiddleware } from '../http/idempotency.ts';
import type { AnyJobType } from '../jobs/job.ts';
import type { Permission } from './access/policy.ts';
import type { EventCatalog, Subscriber } from './domain-events/domain-event.ts';
import type { ErrorCode } from './errors.ts';

/** What route factories get: the container's services, and the shared Idempotency-Key middleware. */
export interface RouteContext {
  container: Container;
  idempotency: IdempotencyMiddleware;
}

/** Per surface, the module's routes, built from the container (see http/surfaces/). */
export type ModuleRoutes = { [S in keyof SurfaceRoutes]?: (context: RouteContext) => SurfaceRoutes[S][number] };

export interface ModelClass {
  initModel(sequelize: Sequelize): unknown;
}

/** A job type with the container's part its handler needs; the type checks that part against the handler's. */
export interface BoundJob<J extends AnyJobType = AnyJobType> {
  type: J;
  deps: (container: Container) => Parameters<J['handler']>[0];
}

export const bindJob = <J extends AnyJobType>(type: J, deps: (container: Container) => Parameters<J['handler']>[0]): BoundJob<J> => ({ type, deps });

/** Rows naming a user, for the deletion warnings; transferable ones move to another user, the rest is history. */
export interface OwnedUserData {
  type: string;
  description: string;
  table: string;
  column: string;
  transferable: boolean;
  /** Appended to the bound user id (e.g. `::text` for a text column). */
  cast?: string;
}

export interface ModuleManifest {
  /** The folder's name under src/modules. */
  name: string;
  /** Sequelize models by the name the container exposes them under (`container.models.User`). */
  models?: Readonly<Record<string, ModelClass>>;
  /** Associations among this module's own models, run once every model is initialised. */
  associate?: () => void;
  routes?: ModuleRoutes;
  jobs?: readonly BoundJob[];
  /** The domain event kinds it announces (public ones are webhooks and need an openapi.yaml entry). */
  events?: EventCatalog;
  /** Its reactions to other modules' events, subscribed once the container is built. */
  subscribers?: (container: Container) => Subscriber[];
  /** Permissions of the access policy its services check (declared here, granted in shared/access/policy.ts). */
  permissions?: readonly Permission[];
  /** Error codes it owns (declared here, defined in shared/errors.ts). */
  errors?: readonly ErrorCode[];
  ownedUserData?: readonly OwnedUserData[];
}

/** Keeps the literal types (job names, model names, event kinds) the derived catalogs are typed by. */
export const defineModule = <const M extends ModuleManifest>(manifest: M): M => manifest;

// Type helpers for deriving catalogs from the list.
export type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
export type ModelsOf<M> = M extends { models: infer X } ? X : never;
export type JobsOf<M> = M extends { jobs: readonly (infer J)[] } ? J : never;
export type EventsOf<M> = M extends { events: infer E } ? E : never;
