import type { components } from '../../types/openapi.d.ts';
import type { Directory } from './directory.model.ts';
import type { DirectoryCounts, SyncRun } from './directory.service.ts';
import type { DirectoryGroupRow, DirectoryUserRow } from './directory-provisioning.service.ts';

type Schemas = components['schemas'];

const iso = (date: Date | null | undefined) => (date ? new Date(date).toISOString() : null);

export function toSyncRunDto(run: SyncRun): Schemas['DirectorySyncRun'] {
  return {
    id: run.id,
    directoryId: run.directoryId,
    status: run.status,
    usersSynced: run.usersSynced,
    groupsSynced: run.groupsSynced,
    error: run.error,
    startedAt: iso(run.startedAt),
    finishedAt: iso(run.finishedAt),
    createdAt: iso(run.createdAt)!,
  };
}

export function toDirectoryDto(
  directory: Directory,
  counts: DirectoryCounts | undefined,
  scimUrl: string,
): Schemas['Directory'] {
  return {
    id: directory.id,
    organizationId: directory.organizationId,
    name: directory.name,
    provider: directory.provider,
    externalId: directory.externalId,
    status: directory.status,
    scimUrl,
    tokenPrefix: directory.tokenPrefix,
    tokenCreatedAt: iso(directory.tokenCreatedAt),
    hardDelete: directory.hardDelete,
    sendWelcome: directory.sendWelcome,
    groupRoles: directory.groupRoles,
    defaultRole: directory.defaultRole,
    userCount: counts?.users ?? 0,
    groupCount: counts?.groups ?? 0,
    lastSyncAt: iso(directory.lastSyncAt),
    lastError: directory.lastError,
    lastErrorAt: iso(directory.lastErrorAt),
    createdAt: directory.createdAt.toISOString(),
    updatedAt: directory.updatedAt.toISOString(),
  };
}

/** The spec's directory user: the SCIM core User shape, plus the account it manages. */
export function toDirectoryUserDto(
  row: DirectoryUserRow & { groups: Array<{ id: string; displayName: string }> },
): Schemas['DirectoryUser'] {
  return {
    id: row.id,
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    externalId: row.externalId,
    userName: row.userName,
    name: { givenName: row.givenName, familyName: row.familyName },
    emails: row.email ? [{ primary: true, value: row.email }] : [],
    active: row.active,
    groups: row.groups.map((g) => ({ value: g.id, display: g.displayName })),
    userId: row.userId,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}

export function toDirectoryGroupDto(row: DirectoryGroupRow & { memberCount: number }): Schemas['DirectoryGroup'] {
  return {
    id: row.id,
    externalId: row.externalId,
    displayName: row.displayName,
    memberCount: row.memberCount,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}
