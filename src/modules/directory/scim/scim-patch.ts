// RFC 7644 §3.5.2 PatchOp applied to a resource's JSON, as Entra ID and Okta send it: ops in any case
// ("Replace", "Add"), no-path value objects ({"active": false}, Okta's {"id", "displayName"}) whose keys
// may themselves be paths ("name.givenName"), `emails[type eq "work"].value` (an absent work address is
// created, as Entra's "Add" of a changed one expects), extension paths
// `urn:…:enterprise:2.0:User:department`, and `members[value eq "…"]` / `members` + value removals.
// Attribute names match case-insensitively; new keys keep the case the client wrote.
import { errors } from '../../../shared/errors.ts';
import { type Filter, FilterSyntaxError, matches, parseFilter } from './scim-filter.ts';
import { scimErrors } from './scim-errors.ts';

export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const SCHEMA_URNS = [
  'urn:ietf:params:scim:schemas:core:2.0:User',
  'urn:ietf:params:scim:schemas:core:2.0:Group',
  ENTERPRISE_USER_SCHEMA,
];

type Json = Record<string, unknown>;
type Op = 'add' | 'remove' | 'replace';

export interface PatchPath {
  text: string;
  /** The extension URN whose object holds the attribute, or none for core attributes. */
  extension?: string;
  attr: string;
  filter?: Filter;
  sub?: string;
}

export interface PatchOperation {
  op: Op;
  path?: PatchPath;
  value?: unknown;
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const keyOf = (object: Json, name: string) => Object.keys(object).find((k) => k.toLowerCase() === name.toLowerCase());
const ATTR_NAME = /^[A-Za-z$][\w$-]*$/;

/** `attr`, `attr.sub`, `attr[filter]`, `attr[filter].sub`, each optionally behind a schema URN. */
export function parsePatchPath(text: string): PatchPath {
  const bad = (why: string) => scimErrors.invalidPath(`The path "${text}" ${why}`);
  let rest = text.trim();
  let extension: string | undefined;
  const urn = SCHEMA_URNS.find((u) => rest.toLowerCase().startsWith(`${u.toLowerCase()}:`));
  if (urn) {
    rest = rest.slice(urn.length + 1);
    if (urn !== SCHEMA_URNS[0] && urn !== SCHEMA_URNS[1]) extension = urn;
  } else if (rest.toLowerCase().startsWith('urn:')) throw bad('names an unknown schema');
  let filter: Filter | undefined;
  const open = rest.indexOf('[');
  let names: string[];
  if (open >= 0) {
    const close = rest.lastIndexOf(']');
    if (close < open) throw bad('has an unclosed "["');
    try {
      filter = parseFilter(rest.slice(open + 1, close));
    } catch (error) {
      if (error instanceof FilterSyntaxError) throw bad(`has a filter that ${error.message}`);
      throw error;
    }
    const after = rest.slice(close + 1);
    if (after && !after.startsWith('.')) throw bad('has text after "]"');
    names = [rest.slice(0, open), ...(after ? [after.slice(1)] : [])];
  } else names = rest.split('.');
  if (names.length > 2 || names.some((n) => !ATTR_NAME.test(n))) throw bad('names no attribute');
  return { text, extension, attr: names[0]!, filter, sub: names[1] };
}

/** The operations of a PatchOp body; invalidSyntax when it is not one. */
export function parsePatchOp(body: unknown): PatchOperation[] {
  const operations = isObject(body) ? body[keyOf(body, 'Operations') ?? 'Operations'] : undefined;
  if (!Array.isArray(operations) || operations.length === 0)
    throw scimErrors.invalidSyntax('A PatchOp carries "Operations": a list of add, remove or replace operations');
  return operations.map((operation, index) => {
    if (!isObject(operation)) throw scimErrors.invalidSyntax(`Operation ${index + 1} is not an object`);
    const op = String(operation[keyOf(operation, 'op') ?? 'op'] ?? '').toLowerCase();
    if (op !== 'add' && op !== 'remove' && op !== 'replace')
      throw scimErrors.invalidSyntax(`Operation ${index + 1} has op "${op}": add, remove or replace`);
    const path = operation[keyOf(operation, 'path') ?? 'path'];
    const value = operation[keyOf(operation, 'value') ?? 'value'];
    if (path !== undefined && path !== null && (typeof path !== 'string' || !path.trim()))
      throw scimErrors.invalidPath(`Operation ${index + 1} has a path that is not a text`);
    if (op !== 'remove' && value === undefined)
      throw scimErrors.invalidSyntax(`Operation ${index + 1} (${op}) carries no value`);
    return { op, path: typeof path === 'string' && path.trim() ? parsePatchPath(path) : undefined, value };
  });
}

/** The resource after the operations (a copy); `readOnly` attributes named by a path are refused. */
export function applyPatch(resource: Json, operations: PatchOperation[], readOnly: readonly string[]): Json {
  const target = structuredClone(resource);
  const apply = (op: Op, path: PatchPath, value: unknown) => {
    if (!path.extension && readOnly.includes(path.attr.toLowerCase())) throw scimErrors.mutability(path.attr);
    applyAt(target, op, path, value);
  };
  for (const { op, path, value } of operations) {
    if (path) {
      apply(op, path, value);
      continue;
    }
    if (op === 'remove') throw scimErrors.noTarget('A remove operation needs a path');
    if (!isObject(value)) throw scimErrors.invalidSyntax(`An ${op} without a path carries an object of attributes`);
    for (const [key, inner] of Object.entries(value)) {
      // Okta's group replace repeats the id; schemas and meta are the server's
      if (['id', 'meta', 'schemas'].includes(key.toLowerCase())) continue;
      const extension = SCHEMA_URNS.find((u) => u.toLowerCase() === key.toLowerCase());
      if (extension && isObject(inner))
        for (const [attr, v] of Object.entries(inner)) apply(op, { text: attr, extension, attr }, v);
      else apply(op, parsePatchPath(key), inner);
    }
  }
  return target;
}

function holder(resource: Json, path: PatchPath, create: boolean): Json | undefined {
  if (!path.extension) return resource;
  const key = keyOf(resource, path.extension);
  if (key && isObject(resource[key])) return resource[key] as Json;
  if (!create) return undefined;
  const created: Json = {};
  resource[path.extension] = created;
  return created;
}

function applyAt(resource: Json, op: Op, path: PatchPath, value: unknown): void {
  const target = holder(resource, path, op !== 'remove');
  if (!target) return;
  const key = keyOf(target, path.attr) ?? path.attr;
  const current = target[key];
  if (path.filter) {
    applyToValues(target, key, op, path, value);
    return;
  }
  if (path.sub) {
    if (Array.isArray(current))
      throw scimErrors.invalidPath(`The path "${path.text}" needs a filter: ${key} has many values`);
    if (op === 'remove') {
      if (isObject(current)) delete current[keyOf(current, path.sub) ?? path.sub];
      return;
    }
    const object = isObject(current) ? current : (target[key] = {} as Json);
    object[keyOf(object, path.sub) ?? path.sub] = value;
    return;
  }
  if (op === 'remove') {
    if (Array.isArray(current) && value !== undefined) {
      const gone = (Array.isArray(value) ? value : [value]).map(identity);
      target[key] = current.filter((element) => !gone.includes(identity(element)));
    } else delete target[key];
    return;
  }
  if (op === 'add' && Array.isArray(current)) {
    const known = new Set(current.map(identity));
    for (const element of Array.isArray(value) ? value : [value])
      if (!known.has(identity(element))) {
        known.add(identity(element));
        current.push(element);
      }
    return;
  }
  if (isObject(current) && isObject(value)) {
    for (const [sub, v] of Object.entries(value)) current[keyOf(current, sub) ?? sub] = v;
    return;
  }
  target[key] = value;
}

/** `attr[filter]` and `attr[filter].sub`: the values the filter selects. */
function applyToValues(target: Json, key: string, op: Op, path: PatchPath, value: unknown): void {
  const values = Array.isArray(target[key]) ? (target[key] as unknown[]) : [];
  const selected = values.filter((element) => matches(element, path.filter!));
  if (op === 'remove') {
    if (path.sub)
      for (const element of selected) delete (element as Json)[keyOf(element as Json, path.sub) ?? path.sub];
    else target[key] = values.filter((element) => !selected.includes(element));
    return;
  }
  if (selected.length === 0) {
    const seed = equalities(path.filter!);
    if (!seed) throw scimErrors.noTarget(`No value of ${key} matches "${path.text}"`);
    selected.push(seed);
    target[key] = [...values, seed];
  }
  for (const element of selected as Json[]) {
    if (path.sub) element[keyOf(element, path.sub) ?? path.sub] = value;
    else if (isObject(value)) for (const [sub, v] of Object.entries(value)) element[keyOf(element, sub) ?? sub] = v;
    else throw errors.validation([{ field: path.text, message: 'takes an object of sub-attributes' }]);
  }
}

/** A new value from `type eq "work"` (and more `eq`s joined by and); none for any other filter. */
function equalities(filter: Filter): Json | undefined {
  if (filter.kind === 'compare' && filter.op === 'eq' && filter.path.segments.length === 1)
    return { [filter.path.segments[0]!]: filter.value };
  if (filter.kind !== 'and') return undefined;
  const [left, right] = [equalities(filter.left), equalities(filter.right)];
  return left && right ? { ...left, ...right } : undefined;
}

/** What makes two values of a multi-valued attribute the same one: their `value`, else their JSON. */
function identity(element: unknown): string {
  if (isObject(element)) {
    const key = keyOf(element, 'value');
    if (key !== undefined) return `value:${String(element[key]).toLowerCase()}`;
  }
  return JSON.stringify(element);
}
