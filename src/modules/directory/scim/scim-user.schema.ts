// The attributes a User resource has (RFC 7643 §4.1 core User, §4.3 enterprise extension), with their
// sub-attributes. A User is stored and returned with these only: Entra ID and Okta send attributes of
// their own (custom extensions, an app's mapped fields) that a server is expected to ignore, and
// anything else a client writes (`organizationId`, `role`) is neither kept, returned, nor applied (an
// account's role comes from the directory's group mapping alone). Names match case-insensitively and
// are kept in their canonical case.
import { ENTERPRISE_USER_SCHEMA } from './scim-patch.ts';

type Json = Record<string, unknown>;

const MULTI_VALUE = ['value', 'display', 'type', 'primary'];
const ADDRESS = ['formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country', 'type', 'primary'];

/** Each attribute's sub-attributes (complex ones; of each value for multi-valued ones), or none (simple). */
const CORE: Record<string, readonly string[] | null> = {
  userName: null,
  externalId: null,
  name: ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'],
  displayName: null,
  nickName: null,
  profileUrl: null,
  title: null,
  userType: null,
  preferredLanguage: null,
  locale: null,
  timezone: null,
  active: null,
  emails: MULTI_VALUE,
  phoneNumbers: MULTI_VALUE,
  ims: MULTI_VALUE,
  photos: MULTI_VALUE,
  addresses: ADDRESS,
  entitlements: MULTI_VALUE,
  roles: MULTI_VALUE,
  x509Certificates: MULTI_VALUE,
};
const ENTERPRISE: Record<string, readonly string[] | null> = {
  employeeNumber: null,
  costCenter: null,
  organization: null,
  division: null,
  department: null,
  manager: ['value', '$ref', 'displayName'],
};

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const lookup = (names: Iterable<string>) => new Map([...names].map((name) => [name.toLowerCase(), name]));
const CORE_NAMES = lookup(Object.keys(CORE));
const ENTERPRISE_NAMES = lookup(Object.keys(ENTERPRISE));
const SUB_NAMES = new Map(
  [...Object.values(CORE), ...Object.values(ENTERPRISE)].filter((s) => s !== null).map((s) => [s, lookup(s)]),
);

/** An object's known attributes, renamed to their canonical case; unknown ones dropped. */
function known(object: Json, names: Map<string, string>): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(object)) {
    const name = names.get(key.toLowerCase());
    if (name !== undefined) out[name] = value;
  }
  return out;
}

/** A value with its sub-attributes known ones only (a multi-valued attribute's values each). */
function knownParts(value: unknown, subs: readonly string[] | null): unknown {
  if (!subs) return value;
  const names = SUB_NAMES.get(subs)!;
  if (Array.isArray(value)) return value.map((element) => (isObject(element) ? known(element, names) : element));
  return isObject(value) ? known(value, names) : value;
}

function attributesOf(object: Json, names: Map<string, string>, schema: Record<string, readonly string[] | null>) {
  const out = known(object, names);
  for (const [name, value] of Object.entries(out)) out[name] = knownParts(value, schema[name]!);
  return out;
}

/**
 * The User's attributes of the core schema and the enterprise extension, in their canonical case
 * (id, meta, groups, schemas and password are not among them: ours, the message's, or never kept).
 */
export function userAttributes(resource: Json): Json {
  const out = attributesOf(resource, CORE_NAMES, CORE);
  const extensionKey = Object.keys(resource).find((k) => k.toLowerCase() === ENTERPRISE_USER_SCHEMA.toLowerCase());
  const extension = extensionKey === undefined ? undefined : resource[extensionKey];
  if (isObject(extension)) out[ENTERPRISE_USER_SCHEMA] = attributesOf(extension, ENTERPRISE_NAMES, ENTERPRISE);
  return out;
}
