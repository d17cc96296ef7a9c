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
