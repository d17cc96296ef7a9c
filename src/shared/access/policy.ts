// The one access policy: which role may do what. Services call assertCan() before anything else.
import { AppError, errors } from '../errors.ts';
import type { Actor, PrincipalRole } from './actor.ts';

const PERMISSIONS = {
  'members:read': 'read',
  'members:write': 'write',
  'events:read': 'read',
  'events:write': 'write',
  'courses:read': 'read',
  'courses:write': 'write',
  'webhooks:manage': 'write',
  'apiKeys:read': 'read',
  'apiKeys:manage': 'write',
  'resources:read': 'read',
  'resources:write': 'write',
  'categories:manage': 'write',
  'content:generate': 'write',
  'reports:read': 'read',
  'integrations:configure': 'write',
  'users:read': 'read',
  'users:admin': 'write',
  'jobs:read': 'read',
  'platform:admin': 'write',
  'profile:write': 'write',
} as const;

export type Permission = keyof typeof PERMISSIONS;

const ORG_CONTENT_READ: Permission[] = ['events:read', 'courses:read', 'resources:read', 'profile:write'];
const STAFF: Permission[] = [
  ...ORG_CONTENT_READ,
  'members:read',
  'members:write',
  'events:write',
  'courses:write',
  'reports:read',
];
const CLIENT_ADMIN: Permission[] = [
  ...STAFF,
  'webhooks:manage',
  'apiKeys:read',
  'apiKeys:manage',
  'resources:write',
  'categories:manage',
  'content:generate',
  'integrations:configure',
];

const GRANTS: Record<PrincipalRole, readonly Permission[]> = {
  ROLE_MEMBER: ORG_CONTENT_READ,
  ROLE_SPONSOR_USER: ORG_CONTENT_READ,
  ROLE_SPONSOR_ADMIN: ORG_CONTENT_READ,
  ROLE_CLIENT_USER: STAFF,
  ROLE_CLIENT_ADMIN: CLIENT_ADMIN,
  ROLE_PLATFORM_ADMIN: [...CLIENT_ADMIN, 'users:read', 'users:admin', 'jobs:read', 'platform:admin'],
  // An API key is an organization's integration: the public API's data, not keys or people.
  API_KEY: STAFF.filter((p) => p !== 'profile:write').concat([
    'webhooks:manage',
    'resources:write',
    'categories:manage',
  ]),
  SYSTEM: Object.keys(PERMISSIONS) as Permission[],
  // directory and identity-service principals are granted by their own modules when they arrive
  DIRECTORY: [],
  IDENTITY_SERVICE: [],
  // the public library catalogue: what the library's access policy lets everyone see
  ANONYMOUS: ['resources:read'],
};

export function can(actor: Actor, permission: Permission): boolean {
  if (!GRANTS[actor.role].includes(permission)) return false;
  if (PERMISSIONS[permission] === 'write' && actor.impersonation?.mode === 'read_only') return false;
  return true;
}

export function assertCan(actor: Actor, permission: Permission): void {
  if (can(actor, permission)) return;
  if (GRANTS[actor.role].includes(permission)) {
    throw new AppError('read_only_impersonation', 'This impersonation session is read-only');
  }
  throw errors.forbidden(`Your role (${actor.role}) lacks the permission ${permission}`);
}

/** Sensitive operations (impersonation, deletion) need a token whose holder verified a one-time code. */
export function assertMfa(actor: Actor): void {
  if (actor.type === 'user' && !actor.mfaVerified) {
    throw new AppError(
      'mfa_required',
      'This operation needs a token verified with a one-time code: log in with "otp", or send a code to ' +
        'POST /api/auth/mfa/verify (not enrolled yet: POST /api/auth/mfa/enrollment first)',
    );
  }
}
