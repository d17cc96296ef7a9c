export const ROLES = [
  'ROLE_MEMBER',
  'ROLE_CLIENT_USER',
  'ROLE_CLIENT_ADMIN',
  'ROLE_SPONSOR_USER',
  'ROLE_SPONSOR_ADMIN',
  'ROLE_PLATFORM_ADMIN',
] as const;

export type Role = (typeof ROLES)[number];

/**
 * Privilege rank, used by the rules "cannot impersonate equal or higher privilege" and
 * "raising a role needs confirmation". Sponsor and client roles are parallel tracks; their
 * admins outrank their users, and every staff role outranks a plain member.
 */
export const PRIVILEGE: Record<Role, number> = {
  ROLE_MEMBER: 1,
  ROLE_CLIENT_USER: 2,
  ROLE_SPONSOR_USER: 2,
  ROLE_CLIENT_ADMIN: 3,
  ROLE_SPONSOR_ADMIN: 3,
  ROLE_PLATFORM_ADMIN: 4,
};

export type Portal = 'member' | 'client' | 'sponsor' | 'admin';

/** The portal a user lands in (impersonation redirects there). */
export const HOME_PORTAL: Record<Role, Portal> = {
  ROLE_MEMBER: 'member',
  ROLE_CLIENT_USER: 'client',
  ROLE_CLIENT_ADMIN: 'client',
  ROLE_SPONSOR_USER: 'sponsor',
  ROLE_SPONSOR_ADMIN: 'sponsor',
  ROLE_PLATFORM_ADMIN: 'admin',
};

/** The roles a sign-in (SSO) or a directory (SCIM) may grant: never a platform admin, never a sponsor. */
export const PROVISIONED_ROLES = ['ROLE_MEMBER', 'ROLE_CLIENT_USER', 'ROLE_CLIENT_ADMIN'] as const;
export type ProvisionedRole = (typeof PROVISIONED_ROLES)[number];

export const isProvisionedRole = (role: string): role is ProvisionedRole =>
  (PROVISIONED_ROLES as readonly string[]).includes(role);

/**
 * The highest role the groups map to (group names compared without case); no mapped group gives the
 * fallback. A stored mapping to any other role (a platform admin) is ignored.
 */
export function highestMappedRole(
  mappings: ReadonlyArray<{ group: string; role: string }>,
  groups: readonly string[],
  fallback: ProvisionedRole,
): ProvisionedRole {
  const names = new Set(groups.map((group) => group.toLowerCase()));
  const granted = mappings
    .filter((mapping) => names.has(mapping.group.toLowerCase()))
    .map((mapping) => mapping.role)
    .filter(isProvisionedRole);
  if (granted.length === 0) return fallback;
  return granted.reduce((best, role) => (PRIVILEGE[role] > PRIVILEGE[best] ? role : best));
}
