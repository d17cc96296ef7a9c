// Human labels for the datagrid, the CSV export and the Admin Portal.
import type { Role } from '../../shared/access/roles.ts';
import type { UserStatus } from './user.model.ts';

export const ROLE_LABELS: Record<Role, string> = {
  ROLE_MEMBER: 'Member',
  ROLE_CLIENT_USER: 'Client User',
  ROLE_CLIENT_ADMIN: 'Client Admin',
  ROLE_SPONSOR_USER: 'Sponsor User',
  ROLE_SPONSOR_ADMIN: 'Sponsor Admin',
  ROLE_PLATFORM_ADMIN: 'Platform Admin',
};

export const STATUS_LABELS: Record<UserStatus, string> = {
  active: 'Active',
  inactive: 'Inactive',
  suspended: 'Suspended',
  pending: 'Pending',
};

/**
 * The spec's Role filter offers five values; "Sponsor" covers both sponsor roles. The API filters by
 * exact roles (`role=ROLE_SPONSOR_USER,ROLE_SPONSOR_ADMIN`); the portal's dropdown uses these groups.
 */
export const ROLE_FILTER_GROUPS: Record<string, { label: string; roles: Role[] }> = {
  member: { label: 'Member', roles: ['ROLE_MEMBER'] },
  client_user: { label: 'Client User', roles: ['ROLE_CLIENT_USER'] },
  client_admin: { label: 'Client Admin', roles: ['ROLE_CLIENT_ADMIN'] },
  sponsor: { label: 'Sponsor', roles: ['ROLE_SPONSOR_USER', 'ROLE_SPONSOR_ADMIN'] },
  platform_admin: { label: 'Platform Admin', roles: ['ROLE_PLATFORM_ADMIN'] },
};
