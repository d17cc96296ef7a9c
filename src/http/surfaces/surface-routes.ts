// What a module hands each surface: a function that registers its routes there. The types live in
// this leaf (no surface, no container) so that modules can name them without importing the surfaces.
import type { Request, RequestHandler, Router } from 'express';
import type { Actor } from '../../shared/access/actor.ts';

/** A module's JSON routes, registered on the API surface's one routing table with full /api paths. */
export type ApiRoutes = (router: Router) => void;

export interface UploadRouteOptions {
  /** The largest body this route takes (500 MB for resources). */
  maxBytes: number;
}

export interface UploadRouter {
  post(path: string, options: UploadRouteOptions, handler: RequestHandler): void;
  put(path: string, options: UploadRouteOptions, handler: RequestHandler): void;
  /**
   * A resumable (tus) endpoint: the given methods behind the credential and the limits (the body, when
   * there is one, is a PATCH's bytes, guarded to `maxBytes`); OPTIONS, the protocol's discovery and a
   * browser's preflight, carries no credential and reaches the handler as is.
   */
  resumable(
    path: string,
    options: UploadRouteOptions & { methods: ReadonlyArray<'post' | 'head' | 'patch' | 'delete'> },
    handler: RequestHandler,
  ): void;
}

/** A module's upload routes, relative to /api (`/resources`), mounted ahead of the JSON API. */
export type UploadRoutes = (uploads: UploadRouter) => void;

/** Resolves a directory's SCIM bearer token to its principal (type 'directory'), or null. */
export type DirectoryTokenVerifier = (token: string, req: Request) => Promise<Actor | null>;

/** A module's SCIM routes, relative to the surface's prefix (/scim/v2): `/Users`, `/Groups/:id`. */
export type ScimRoutes = (router: Router) => void;

/** A module's SSO routes, relative to the surface's prefix (/auth): `/sso`, `/callback/idp`. */
export type SsoRoutes = (router: Router) => void;

export interface InboundWebhookRoute {
  /** Throws (401) unless the signature over req.rawBody and its headers is valid. */
  verify: (req: Request & { rawBody: Buffer }) => Promise<void> | void;
  handle: RequestHandler;
}

export interface InboundWebhookRouter {
  receive(path: string, route: InboundWebhookRoute): void;
}

/** A module's inbound webhooks, relative to the surface's prefix (/webhooks): `/idp`. */
export type InboundWebhookRoutes = (router: InboundWebhookRouter) => void;

/** Every surface's registration type, by surface. */
export interface SurfaceRoutes {
  api: ApiRoutes;
  uploads: UploadRoutes;
  scim: ScimRoutes;
  sso: SsoRoutes;
  inboundWebhooks: InboundWebhookRoutes;
}
