// A Group PatchOp as a plan: the new name or external id, and the members to add and remove (or the
// whole new membership, after a replace of `members` or a remove without a value). Carried out with
// provisioning's addMembers/removeMembers, so a group of thousands is never rewritten for one joiner.
// Covers Entra ID's ({"op": "Add"|"Remove", "path": "members", "value": [{"value": id}]}) and Okta's
// ({"op": "remove", "path": "members[value eq \"id\"]"}, {"op": "replace", "value": {"id", "displayName"}}).
import type { Filter } from './scim-filter.ts';
import { scimErrors } from './scim-errors.ts';
import { groupExternalId, groupName, memberIdsOf } from './scim-group.mapper.ts';
import { type PatchOperation, type PatchPath, parsePatchPath } from './scim-patch.ts';

export interface GroupPatchPlan {
  displayName?: string;
  /** null: cleared; undefined: unchanged. */
  externalId?: string | null;
  add: Set<string>;
  remove: Set<string>;
  /** The whole membership, when an operation set it. */
  replace: Set<string> | null;
}

type Op = PatchOperation['op'];

/** The ids of `value eq "<id>"`, alone or joined by `or`: the member filters identity providers send. */
function idsOf(filter: Filter, path: PatchPath): string[] {
  if (filter.kind === 'or') return [...idsOf(filter.left, path), ...idsOf(filter.right, path)];
  if (filter.kind === 'compare' && filter.op === 'eq' && filter.path.segments.join('.') === 'value')
    return memberIdsOf([{ value: filter.value }]);
  throw scimErrors.invalidPath(`The path "${path.text}" selects members by value eq "<id>" only`);
}

class Planner {
  readonly plan: GroupPatchPlan = { add: new Set(), remove: new Set(), replace: null };

  private addMembers(ids: string[]) {
    for (const id of ids) {
      if (this.plan.replace) this.plan.replace.add(id);
      else {
        this.plan.add.add(id);
        this.plan.remove.delete(id);
      }
    }
  }

  private removeMembers(ids: string[]) {
    for (const id of ids) {
      if (this.plan.replace) this.plan.replace.delete(id);
      else {
        this.plan.remove.add(id);
        this.plan.add.delete(id);
      }
    }
  }

  apply(op: Op, path: PatchPath, value: unknown): void {
    const attr = path.attr.toLowerCase();
    if (path.extension) throw scimErrors.invalidPath(`Groups have no attribute "${path.text}"`);
    if (attr === 'id' || attr === 'meta') throw scimErrors.mutability(path.attr);
    if (attr === 'members') {
      this.members(op, path, value);
      return;
    }
    if (path.filter || path.sub || (attr !== 'displayname' && attr !== 'externalid'))
      throw scimErrors.invalidPath(`Groups have displayName, externalId and members, not "${path.text}"`);
    if (attr === 'displayname') {
      if (op === 'remove') throw scimErrors.invalidValue('displayName', 'is required');
      this.plan.displayName = groupName(value);
    } else this.plan.externalId = op === 'remove' ? null : groupExternalId(value);
  }

  private members(op: Op, path: PatchPath, value: unknown): void {
    if (path.sub) throw scimErrors.invalidPath(`The path "${path.text}" names a part of a member`);
    if (path.filter) {
      if (op !== 'remove') throw scimErrors.invalidPath(`Members are added as {"path": "members", "value": [...]}`);
      this.removeMembers(idsOf(path.filter, path));
      return;
    }
    const list = value === undefined || Array.isArray(value) ? value : [value];
    if (op === 'add') this.addMembers(memberIdsOf(list));
    else if (op === 'replace') {
      this.plan.replace = new Set(memberIdsOf(list));
      this.plan.add.clear();
      this.plan.remove.clear();
    } else if (list === undefined) {
      this.plan.replace = new Set();
      this.plan.add.clear();
      this.plan.remove.clear();
    } else this.removeMembers(memberIdsOf(list));
  }
}

export function planGroupPatch(operations: PatchOperation[]): GroupPatchPlan {
  const planner = new Planner();
  for (const { op, path, value } of operations) {
    if (path) {
      planner.apply(op, path, value);
      continue;
    }
    if (op === 'remove') throw scimErrors.noTarget('A remove operation needs a path');
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw scimErrors.invalidSyntax(`An ${op} without a path carries an object of attributes`);
    for (const [key, inner] of Object.entries(value)) {
      // Okta's replace repeats the group's id; schemas and meta are not attributes to change
      if (['id', 'schemas', 'meta'].includes(key.toLowerCase())) continue;
      planner.apply(op, parsePatchPath(key), inner);
    }
  }
  return planner.plan;
}
