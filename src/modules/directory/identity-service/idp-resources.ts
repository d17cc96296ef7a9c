// The identity service's directory users and groups as they arrive: snake_case in webhook events
// (the spec's envelope plus what WorkOS really sends: top-level `email`, `custom_attributes`,
// `groups`), camelCase from the SDK's list calls. Both are read into one shape, and that shape into
// the provisioning input SCIM uses too, so a webhook, a pull sync and SCIM map a person the same way.
import type { DirectoryGroupInput, DirectoryUserInput } from '../directory-provisioning.service.ts';

export interface IdpGroup {
  id: string;
  name: string;
  updatedAt: string | null;
}

export interface IdpUser {
  id: string;
  email: string | null;
  username: string | null;
  firstName: string | null;
  lastName: string | null;
  state: string;
  customAttributes: Record<string, unknown>;
  rawAttributes: Record<string, unknown>;
  /** The groups the user is in; undefined when the event does not say (membership left as it is). */
  groups: IdpGroup[] | undefined;
  updatedAt: string | null;
}

type Json = Record<string, unknown>;

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value.trim() : null);
const object = (value: unknown): Json =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};

/** A group of an event (`dsync.group.*`, the `group` of user_added) or of a user's `groups`. */
export function groupFromEvent(data: unknown): IdpGroup | null {
  const g = object(data);
  const id = text(g.id);
  if (!id) return null;
  return { id, name: text(g.name) ?? id, updatedAt: text(g.updated_at) ?? text(g.updatedAt) };
}

/** The primary address of `emails`, else the first one: what the spec's envelope carries. */
function emailOfList(emails: unknown): string | null {
  if (!Array.isArray(emails)) return null;
  const entries = emails.map(object);
  const chosen = entries.find((e) => e.primary === true) ?? entries[0];
  return chosen ? text(chosen.value) : null;
}

/** A user of an event (`dsync.user.*`, the `user` of user_added), or a stored resource read back. */
export function userFromEvent(data: unknown): IdpUser | null {
  const u = object(data);
  const id = text(u.id);
  if (!id) return null;
  const groups = Array.isArray(u.groups)
    ? u.groups.map(groupFromEvent).filter((g): g is IdpGroup => g !== null)
    : undefined;
  return {
    id,
    email: text(u.email) ?? emailOfList(u.emails),
    username: text(u.username),
    firstName: text(u.first_name),
    lastName: text(u.last_name),
    state: text(u.state) ?? 'active',
    customAttributes: object(u.custom_attributes),
    rawAttributes: object(u.raw_attributes),
    groups,
    updatedAt: text(u.updated_at),
  };
}

/** A user of the SDK's listUsers (WorkOS's DirectoryUserWithGroups, deserialised). */
export function userFromSdk(user: {
  id: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  state: string;
  customAttributes: object;
  rawAttributes: unknown;
  groups?: Array<{ id: string; name: string; updatedAt: string }>;
  updatedAt: string;
}): IdpUser {
  const raw = object(user.rawAttributes);
  return {
    id: user.id,
    email: text(user.email) ?? emailOfList(raw.emails),
    username: text(raw.userName) ?? text(raw.username),
    firstName: text(user.firstName),
    lastName: text(user.lastName),
    state: user.state,
    customAttributes: object(user.customAttributes),
    rawAttributes: raw,
    groups: user.groups?.map((g) => ({ id: g.id, name: g.name || g.id, updatedAt: g.updatedAt ?? null })),
    updatedAt: text(user.updatedAt),
  };
}

/** What we keep as the directory user's resource: WorkOS's wire shape, read back by userFromEvent. */
function resourceOf(user: IdpUser): Json {
  return {
    object: 'directory_user',
    id: user.id,
    email: user.email,
    ...(user.username ? { username: user.username } : {}),
    first_name: user.firstName,
    last_name: user.lastName,
    state: user.state,
    custom_attributes: user.customAttributes,
    raw_attributes: user.rawAttributes,
    ...(user.updatedAt ? { updated_at: user.updatedAt } : {}),
  };
}

const firstText = (attributes: Json, ...keys: string[]) => keys.map((k) => text(attributes[k])).find(Boolean) ?? null;

/** The provisioning input: keyed by the identity service's id; any state but `active` deactivates. */
export function toUserInput(user: IdpUser, active = user.state === 'active'): DirectoryUserInput {
  const custom = user.customAttributes;
  return {
    externalId: user.id,
    userName: user.username ?? user.email ?? user.id,
    givenName: user.firstName,
    familyName: user.lastName,
    email: user.email,
    active,
    department: firstText(custom, 'department', 'department_name'),
    jobTitle: firstText(custom, 'job_title', 'jobTitle', 'title'),
    resource: resourceOf(user),
  };
}

export function toGroupInput(group: IdpGroup): DirectoryGroupInput {
  return { externalId: group.id, displayName: group.name };
}
