import type { Role } from './roles.ts';

export type ImpersonationMode = 'read_only' | 'act_as_user';

export interface ImpersonationContext {
  sessionId: string;
  impersonatorId: string;
  mode: ImpersonationMode;
}

/**
 * Who is acting. Services receive it first, check permissions against it, and record it in the
 * audit trail; they never see the HTTP request.
 */
export interface Actor {
  type: 'user' | 'api_key' | 'system';
  id: string;
  /** The tenant whose rows the actor sees; null only for platform admins outside any tenant and the system. */
  organizationId: string | null;
  /** Users have a role; API keys act as the 'API_KEY' integration role; jobs as 'SYSTEM'. */
  role: Role | 'API_KEY' | 'SYSTEM';
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
