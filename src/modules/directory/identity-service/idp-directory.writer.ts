// Applies the identity service's users, groups and memberships to one of our directories, whoever
// carries them (a webhook event or a pull sync), through DirectoryProvisioning: the same accounts,
// roles, audit and tenant rules as SCIM. Everything is keyed by the identity service's ids (our
// externalId), so applying the same thing twice, or out of order, converges:
// - a user or group not known yet is created (an update before its create creates);
// - a user whose stored `updated_at` is newer than the one arriving is left as it is (a late create);
// - deleting or removing what is not there does nothing.
import type { Directory } from '../directory.model.ts';
import type {
  DirectoryGroupRow,
  DirectoryProvisioning,
  DirectoryUserInput,
  DirectoryUserRow,
} from '../directory-provisioning.service.ts';
import { type IdpGroup, type IdpUser, toGroupInput, toUserInput, userFromEvent } from './idp-resources.ts';

/** What deactivating a user no longer listed needs of the row we hold. */
export type StoredUser = Pick<DirectoryUserRow, 'id' | 'externalId' | 'email' | 'active' | 'resource'>;

/** JSON with sorted keys: PostgreSQL's jsonb does not keep the order the resource was written in. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );

/** Whether the row already holds this input (then writing it again would only bump versions and audit). */
function holds(current: DirectoryUserRow, input: DirectoryUserInput): boolean {
  return (
    current.active === input.active &&
    current.userName === input.userName &&
    current.givenName === input.givenName &&
    current.familyName === input.familyName &&
    current.email ===
      ((input.email ?? (input.userName.includes('@') ? input.userName : null))?.toLowerCase() ?? null) &&
    canonical(current.resource) === canonical(input.resource)
  );
}

const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) : Number.NaN);

/** Whether what arrives is older than what we hold (both stamped by the identity service). */
function isStale(current: DirectoryUserRow, incoming: IdpUser): boolean {
  const held = time((current.resource as { updated_at?: string }).updated_at);
  const arriving = time(incoming.updatedAt);
  return Number.isFinite(held) && Number.isFinite(arriving) && arriving < held;
}

export class IdpDirectoryWriter {
  constructor(private readonly provisioning: DirectoryProvisioning) {}

  async upsertUser(directory: Directory, user: IdpUser, active?: boolean): Promise<DirectoryUserRow> {
    const current = await this.provisioning.users.findUserByExternalId(directory, user.id);
    if (current && isStale(current, user)) return current;
    const input = toUserInput(user, active);
    let row = current;
    if (!row) row = await this.provisioning.users.createUser(directory, input);
    else if (!holds(row, input)) row = await this.provisioning.users.replaceUser(directory, row.id, input);
    if (user.groups) await this.setUserGroups(directory, row, user.groups);
    return row;
  }

  /** Deactivates a user the identity service no longer lists (the resource we hold, marked inactive). */
  async deactivateUser(directory: Directory, row: StoredUser): Promise<void> {
    if (!row.active) return;
    const user = userFromEvent(row.resource) ?? userFromEvent({ id: row.externalId ?? row.id, email: row.email });
    if (!user) return;
    await this.provisioning.users.replaceUser(directory, row.id, toUserInput({ ...user, groups: undefined }, false));
  }

  async deleteUser(directory: Directory, externalId: string): Promise<boolean> {
    const current = await this.provisioning.users.findUserByExternalId(directory, externalId);
    if (!current) return false;
    await this.provisioning.users.deleteUser(directory, current.id);
    return true;
  }

  async upsertGroup(directory: Directory, group: IdpGroup): Promise<DirectoryGroupRow> {
    const current = await this.provisioning.groups.findGroupByExternalId(directory, group.id);
    if (!current) return this.provisioning.groups.createGroup(directory, toGroupInput(group));
    if (current.displayName === group.name) return current;
    return this.provisioning.groups.replaceGroup(directory, current.id, toGroupInput(group), null);
  }

  async deleteGroupById(directory: Directory, id: string): Promise<void> {
    await this.provisioning.groups.deleteGroup(directory, id);
  }

  async deleteGroup(directory: Directory, externalId: string): Promise<boolean> {
    const current = await this.provisioning.groups.findGroupByExternalId(directory, externalId);
    if (!current) return false;
    await this.provisioning.groups.deleteGroup(directory, current.id);
    return true;
  }

  /** user_added carries the whole user and group: either may arrive before its own created event. */
  async addMember(directory: Directory, user: IdpUser, group: IdpGroup): Promise<void> {
    const groupRow = await this.upsertGroup(directory, group);
    const userRow = await this.upsertUser(directory, { ...user, groups: undefined });
    await this.provisioning.groups.addMembers(directory, groupRow.id, [userRow.id]);
  }

  async removeMember(directory: Directory, userExternalId: string, groupExternalId: string): Promise<void> {
    const [user, group] = await Promise.all([
      this.provisioning.users.findUserByExternalId(directory, userExternalId),
      this.provisioning.groups.findGroupByExternalId(directory, groupExternalId),
    ]);
    if (user && group) await this.provisioning.groups.removeMembers(directory, group.id, [user.id]);
  }

  /** A group's members, exactly (a pull sync's view); roles of everyone in it before or after are recomputed. */
  async setGroupMembers(directory: Directory, group: DirectoryGroupRow, memberIds: string[]): Promise<void> {
    const before = new Set(await this.provisioning.groups.groupMemberIds(group.id));
    const wanted = new Set(memberIds);
    if (before.size === wanted.size && [...wanted].every((id) => before.has(id))) return;
    const input = { externalId: group.externalId, displayName: group.displayName };
    await this.provisioning.groups.replaceGroup(directory, group.id, input, [...wanted]);
  }

  /** The user's groups, exactly (an event naming the user's `groups`). */
  private async setUserGroups(directory: Directory, row: DirectoryUserRow, groups: IdpGroup[]): Promise<void> {
    const wanted = new Set<string>();
    for (const group of groups) wanted.add((await this.upsertGroup(directory, group)).id);
    const current = new Set((await this.provisioning.users.groupsOfUser(row.id)).map((g) => g.id));
    for (const id of wanted) if (!current.has(id)) await this.provisioning.groups.addMembers(directory, id, [row.id]);
    for (const id of current)
      if (!wanted.has(id)) await this.provisioning.groups.removeMembers(directory, id, [row.id]);
  }
}
