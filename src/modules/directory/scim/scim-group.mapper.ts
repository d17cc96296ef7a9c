// A SCIM Group (RFC 7643 §4.2) to what provisioning takes, and a stored group (with its members, unless
// the client excluded them) back to a SCIM Group.
import { isUuid } from '../../../shared/uuid.ts';
import type { DirectoryGroupInput, DirectoryGroupRow } from '../directory-provisioning.service.ts';
import { scimErrors } from './scim-errors.ts';
import { etagOf } from './scim-http.ts';

export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

export interface GroupMember {
  id: string;
  userName: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const field = (object: Json, name: string) =>
  object[Object.keys(object).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name];

/** The user ids of `members: [{"value": "<id>"}]`; an id that cannot be one of ours is invalidValue. */
export function memberIdsOf(members: unknown): string[] {
  if (!Array.isArray(members)) throw scimErrors.invalidValue('members', 'is a list of {"value": "<user id>"}');
  const ids = members.map((member) => (isObject(member) ? field(member, 'value') : member));
  for (const id of ids)
    if (typeof id !== 'string' || !isUuid(id))
      throw scimErrors.invalidValue('members', `names ${JSON.stringify(id)}, which is not a user of this directory`);
  return [...new Set((ids as string[]).map((id) => id.toLowerCase()))];
}

export function groupName(value: unknown): string {
  if (typeof value !== 'string' || !value.trim()) throw scimErrors.invalidValue('displayName', 'is required');
  if (value.length > 256) throw scimErrors.invalidValue('displayName', 'is longer than 256 characters');
  return value;
}

export function groupExternalId(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || value.length > 500)
    throw scimErrors.invalidValue('externalId', 'is a text of at most 500 characters');
  return value;
}

/** POST and PUT: the name, the external id and, when given, the whole membership. */
export function groupInput(body: unknown): { group: DirectoryGroupInput; memberIds: string[] | null } {
  if (!isObject(body)) throw scimErrors.invalidSyntax('A Group is a JSON object');
  const members = field(body, 'members');
  return {
    group: {
      displayName: groupName(field(body, 'displayName')),
      externalId: groupExternalId(field(body, 'externalId')),
    },
    memberIds: members === undefined || members === null ? null : memberIdsOf(members),
  };
}

export const groupLocation = (baseUrl: string, id: string) => `${baseUrl}/scim/v2/Groups/${id}`;

export function renderGroup(row: DirectoryGroupRow, members: readonly GroupMember[] | null, baseUrl: string): Json {
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    ...(row.externalId ? { externalId: row.externalId } : {}),
    displayName: row.displayName,
    ...(members
      ? {
          members: members.map((m) => ({
            value: m.id,
            display: m.userName,
            type: 'User',
            $ref: `${baseUrl}/scim/v2/Users/${m.id}`,
          })),
        }
      : {}),
    meta: {
      resourceType: 'Group',
      created: new Date(row.createdAt).toISOString(),
      lastModified: new Date(row.updatedAt).toISOString(),
      location: groupLocation(baseUrl, row.id),
      version: etagOf(row.version),
    },
  };
}
