import type { Role } from './roles.ts';

export type ImpersonationMode = 'read_only' | 'act_as_user';

export interface ImpersonationContext {
  sessionId: string;
  impersonatorId: string;
  mode: ImpersonationMode;
}

/**
 * The kinds of principal. `directory`: a customer's directory provisioning over SCIM with its own
 * token; `identity_service`: the SSO/directory identity service calling our inbound webhooks;
 * `anonymous`: a visitor of an organization's public library catalogue (no credential).
 */
export type PrincipalType = 'user' | 'api_key' | 'system' | 'directory' | 'identity_service' | 'anonymous';

/** Machine principals act under a role of their own, granted only what their module needs. */
export type PrincipalRole = Role | 'API_KEY' | 'SYSTEM' | 'DIRECTORY' | 'IDENTITY_SERVICE' | 'ANONYMOUS';

/**
 * Who is acting. Services receive it first, check permissions against it, and record it in the
 * audit trail; they never see the HTTP request.
 */
export interface Actor {
  type: PrincipalType;
  id: string;
  /** The tenant whose rows the actor sees; null only for platform admins outside any tenant and the system. */
  organizationId: string | null;
  /** Users have a role; API keys act as the 'API_KEY' integration role; jobs as 'SYSTEM'; directories as 'DIRECTORY'. */
  role: PrincipalRole;
  /** A one-time code was verified for this token (sensitive operations need it). */
  mfaVerified: boolean;
  impersonation?: ImpersonationContext;
  requestId?: string;
}

export const systemActor = (organizationId: string | null = null): Actor => ({
  type: 'system',
  id: 'system',
  organizationId,
  role: 'SYSTEM',
  mfaVerified: true,
});

/** A customer directory provisioning users over SCIM (its token belongs to one organization). */
export const directoryActor = (directoryId: string, organizationId: string): Actor => ({
  type: 'directory',
  id: directoryId,
  organizationId,
  role: 'DIRECTORY',
  mfaVerified: true,
});

/** The identity service, once its webhook signature is verified. */
export const identityServiceActor = (organizationId: string | null = null): Actor => ({
  type: 'identity_service',
  id: 'identity-service',
  organizationId,
  role: 'IDENTITY_SERVICE',
  mfaVerified: true,
});

/** A visitor without a credential reading one organization's public catalogue; `id` tells visitors apart for unique counts (a hash, never an address). */
export const anonymousActor = (organizationId: string, visitorKey: string): Actor => ({
  type: 'anonymous',
  id: visitorKey,
  organizationId,
  role: 'ANONYMOUS',
  mfaVerified: false,
});
