// A SCIM User (RFC 7643 §4.1, with the enterprise extension's department) to what provisioning takes,
// and a stored directory user back to a SCIM User. The resource is kept with its schemas' attributes
// only (scim-user.schema.ts: in their canonical case; anything else the client sent is ignored), `active`
// a real boolean, never a password; and read back with what only we know: id, groups and meta.
import type { DirectoryUserInput, DirectoryUserRow } from '../directory-provisioning.service.ts';
import { scimErrors } from './scim-errors.ts';
import { ENTERPRISE_USER_SCHEMA } from './scim-patch.ts';
import { etagOf } from './scim-http.ts';
import { userAttributes } from './scim-user.schema.ts';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function text(resource: Json, field: string, max: number, required = false): string | null {
  const value = resource[field];
  if (value === undefined || value === null || value === '') {
    if (required) throw scimErrors.invalidValue(field, 'is required');
    return null;
  }
  if (typeof value !== 'string') throw scimErrors.invalidValue(field, 'is a text');
  if (value.length > max) throw scimErrors.invalidValue(field, `is longer than ${max} characters`);
  return value;
}

/** true, false, or the strings Entra ID sends ("True", "False"). */
export function flag(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw scimErrors.invalidValue(field, 'is true or false');
}

/** The work address, else the primary one, else the first. */
function emailOf(emails: unknown): string | null {
  if (emails === undefined || emails === null) return null;
  if (!Array.isArray(emails) || !emails.every((e) => isObject(e) && typeof e.value === 'string'))
    throw scimErrors.invalidValue('emails', 'is a list of {"value": "<address>", "type", "primary"}');
  const list = emails as Array<{ value: string; type?: unknown; primary?: unknown }>;
  const isPrimary = (e: { primary?: unknown }) => e.primary === true || String(e.primary).toLowerCase() === 'true';
  const chosen = list.find((e) => String(e.type ?? '').toLowerCase() === 'work') ?? list.find(isPrimary) ?? list[0];
  if (chosen && chosen.value.length > 320)
    throw scimErrors.invalidValue('emails', 'holds an address over 320 characters');
  return chosen?.value || null;
}

/** What provisioning takes from a User resource (POST, PUT, or the result of a PATCH). */
export function userInput(body: unknown): DirectoryUserInput {
  if (!isObject(body)) throw scimErrors.invalidSyntax('A User is a JSON object');
  const resource = userAttributes(body);
  const name = isObject(resource.name) ? resource.name : null;
  const enterprise = isObject(resource[ENTERPRISE_USER_SCHEMA]) ? (resource[ENTERPRISE_USER_SCHEMA] as Json) : null;
  resource.active = resource.active === undefined || resource.active === null ? true : flag(resource.active, 'active');
  return {
    userName: text(resource, 'userName', 320, true)!,
    externalId: text(resource, 'externalId', 500),
    givenName: name ? text(name, 'givenName', 200) : null,
    familyName: name ? text(name, 'familyName', 200) : null,
    email: emailOf(resource.emails),
    active: resource.active as boolean,
    department: enterprise ? text(enterprise, 'department', 200) : null,
    jobTitle: text(resource, 'title', 200),
    resource,
  };
}

/**
 * The stored resource with the columns it was written to (what a PATCH starts from), its attributes
 * only (a resource stored before unknown ones were dropped on the way in keeps none of them).
 */
export function storedUser(row: DirectoryUserRow): Json {
  return {
    ...userAttributes(row.resource),
    userName: row.userName,
    externalId: row.externalId ?? undefined,
    active: row.active,
  };
}

export function userLocation(baseUrl: string, id: string): string {
  return `${baseUrl}/scim/v2/Users/${id}`;
}

export function renderUser(
  row: DirectoryUserRow,
  groups: ReadonlyArray<{ id: string; displayName: string }>,
  baseUrl: string,
): Json {
  const { externalId, ...resource } = storedUser(row);
  return {
    schemas: ENTERPRISE_USER_SCHEMA in resource ? [USER_SCHEMA, ENTERPRISE_USER_SCHEMA] : [USER_SCHEMA],
    id: row.id,
    ...(externalId ? { externalId } : {}),
    ...resource,
    groups: groups.map((g) => ({ value: g.id, display: g.displayName, $ref: `${baseUrl}/scim/v2/Groups/${g.id}` })),
    meta: {
      resourceType: 'User',
      created: new Date(row.createdAt).toISOString(),
      lastModified: new Date(row.updatedAt).toISOString(),
      location: userLocation(baseUrl, row.id),
      version: etagOf(row.version),
    },
  };
}
