// Mass-assignment probes, generated from openapi.yaml: every write with a JSON body (POST, PUT, PATCH;
// SCIM included) is sent by a caller its x-guildhall-access allows, with a valid body plus the fields a
// caller must never set: the request schema's readOnly properties, the response's properties that the
// request schema does not take, and the privilege fields (id, organizationId, role, isPlatformAdmin,
// createdAt, updatedAt). Each probe is either refused (400 or 422) or accepted without applying any of
// them: neither the answer nor the stored record (read back where the contract has a GET) carries an
// injected value. A match is confirmed by a second probe with other values, so a coincidence (a flag
// that is true anyway) is not reported. At the end no row of the whole database belongs to the
// organization the probes named, and no platform admin was created.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { loadContract } from '../../src/http/openapi.ts';
import { sample } from '../access/contract-walk.ts';
import { stubDns } from '../factories/dns.ts';
import { buildOrganization } from '../factories/index.ts';
import { buildMember } from '../factories/records.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { type AccessWorld, buildAccessWorld, type Caller, fillPath } from '../support/access-callers.ts';
import { accessRows } from '../support/access-table.ts';

type Schema = Record<string, any>;
const { document } = loadContract();
const contract = document as unknown as {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema> };
};
const resolve = (schema: Schema | undefined): Schema => {
  let current = schema ?? {};
  while (current.$ref) current = contract.components.schemas[String(current.$ref).split('/').pop()!]!;
  if (current.allOf) {
    const parts = current.allOf.map(resolve);
    return {
      ...current,
      properties: Object.assign({}, ...parts.map((p: Schema) => p.properties ?? {})),
      required: parts.flatMap((p: Schema) => p.required ?? []),
    };
  }
  return current;
};
const typeOf = (schema: Schema): string | undefined =>
  Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;

/** Fields no caller may set, whatever the operation's schemas say. */
const PRIVILEGE_FIELDS: Record<string, Schema> = {
  id: { type: 'string', format: 'uuid' },
  organizationId: { type: 'string', format: 'uuid' },
  role: { type: 'string', enum: ['ROLE_PLATFORM_ADMIN'] },
  isPlatformAdmin: { type: 'boolean' },
  createdAt: { type: 'string', format: 'date-time' },
  updatedAt: { type: 'string', format: 'date-time' },
};

/** Which allowed caller probes an operation: the most privileged one of its organization. */
const PREFERENCE: Caller[] = [
  'client_admin',
  'api_key',
  'platform_admin',
  'directory',
  'client_user',
  'member',
  'anonymous',
];

interface Write {
  method: 'post' | 'put' | 'patch';
  template: string;
  mediaType: string;
  request: Schema;
  response: Schema;
  caller: Caller;
}

function writes(): Write[] {
  const access = new Map(accessRows().map((row) => [`${row.method} ${row.template}`, row.allowed ?? []]));
  return Object.entries(contract.paths).flatMap(([template, item]) =>
    (['post', 'put', 'patch'] as const).flatMap((method) => {
      const operation = item[method];
      const content: Record<string, Schema> = operation?.requestBody?.content ?? {};
      const mediaType = Object.keys(content).find((type) => type.includes('json'));
      const caller = PREFERENCE.find((kind) => (access.get(`${method} ${template}`) as string[])?.includes(kind));
      if (!operation || !mediaType || !caller) return [];
      const success = Object.entries(operation.responses ?? {}).find(([status]) => status.startsWith('2'))?.[1] as
        | Schema
        | undefined;
      const responseType = Object.keys(success?.content ?? {}).find((type) => type.includes('json'));
      const response = responseType ? resolve(success!.content[responseType].schema) : {};
      return [{ method, template, mediaType, request: resolve(content[mediaType]!.schema), response, caller }];
    }),
  );
}

/** SCIM's own read-only attributes (RFC 7643: id, meta, a user's groups), which a client's values must never set. */
const SCIM_READ_ONLY: Record<string, Schema> = {
  id: { type: 'string', format: 'uuid' },
  meta: {
    type: 'object',
    required: ['created', 'lastModified', 'location'],
    properties: {
      created: { type: 'string', format: 'date-time' },
      lastModified: { type: 'string', format: 'date-time' },
      location: { type: 'string', format: 'uri' },
    },
  },
  groups: {
    type: 'array',
    items: { type: 'object', required: ['value'], properties: { value: { type: 'string', format: 'uuid' } } },
  },
};

/**
 * The fields to inject into a write, with the schema of the value each one gets. SCIM keeps unknown
 * attributes as the directory sent them (opaque to us, never read as privileges): there the privilege
 * fields are sent too, and checked on the account they provision (the last test), not on the echo.
 */
function injections(write: Write): Record<string, Schema> {
  if (write.template.startsWith('/scim/')) return SCIM_READ_ONLY;
  const requested: Record<string, Schema> = write.request.properties ?? {};
  const writable = (name: string) => name in requested && !resolve(requested[name]).readOnly;
  const fields: Record<string, Schema> = {};
  for (const [name, schema] of Object.entries(requested)) if (resolve(schema).readOnly) fields[name] = schema;
  for (const [name, schema] of Object.entries(write.response.properties ?? {}))
    if (!(name in requested)) fields[name] = schema as Schema;
  for (const [name, schema] of Object.entries(PRIVILEGE_FIELDS)) if (!writable(name)) fields[name] ??= schema;
  return fields;
}

/** A value of the field's type that the service would not choose itself; `round` 1 gives another one. */
function injectedValue(name: string, input: Schema, otherOrganization: string, round: 0 | 1): unknown {
  const schema = resolve(input);
  if (name === 'organizationId' && round === 0) return otherOrganization;
  const choices = (schema.enum as unknown[] | undefined)?.filter((value) => value !== null);
  if (choices?.length) return choices[round === 0 ? choices.length - 1 : 0];
  switch (typeOf(schema)) {
    case 'boolean':
      return round === 0;
    case 'integer':
    case 'number':
      return Math.min(schema.maximum ?? 424242, round === 0 ? 424242 : 171717);
    case 'array':
      return [sample(schema.items ?? {})];
    case 'object':
      return sample(schema);
    default:
      switch (schema.format) {
        case 'uuid':
          return randomUUID();
        case 'date-time':
          return round === 0 ? '2001-02-03T04:05:06.000Z' : '2002-03-04T05:06:07.000Z';
        case 'date':
          return round === 0 ? '2001-02-03' : '2002-03-04';
        case 'email':
          return `injected-${round}-${randomUUID().slice(0, 6)}@example.test`;
        case 'uri':
          return `https://injected-${round}.example.test/`;
        default:
          return `injected-${round}-${randomUUID().slice(0, 6)}`.slice(0, schema.maxLength ?? 64);
      }
  }
}

/** A valid body with fresh values where the service wants unique ones (names, e-mails). */
function validBody(write: Write, world: AccessWorld, memberId: string): Record<string, unknown> {
  if (write.template.startsWith('/scim/v2/Users')) {
    const userName = `scim-${randomUUID().slice(0, 8)}@example.test`;
    return write.method === 'patch'
      ? {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
          Operations: [{ op: 'replace', path: 'title', value: 'Probe' }],
        }
      : {
          schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
          userName,
          name: { givenName: 'Probe', familyName: 'Scim' },
          emails: [{ value: userName, primary: true }],
          active: true,
        };
  }
  if (write.template.startsWith('/scim/v2/Groups')) {
    return write.method === 'patch'
      ? {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
          Operations: [{ op: 'replace', path: 'displayName', value: `Probe ${randomUUID().slice(0, 6)}` }],
        }
      : { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: `Probe ${randomUUID().slice(0, 6)}` };
  }
  const body = sample(write.request) as Record<string, unknown>;
  for (const [name, input] of Object.entries(write.request.properties ?? {})) {
    const schema = resolve(input as Schema);
    if (!(name in body) || typeOf(schema) !== 'string' || schema.enum || schema.format || schema.pattern) continue;
    body[name] = `${name} ${randomUUID().slice(0, 8)}`.slice(0, schema.maxLength ?? 64);
  }
  if (write.template === '/api/resources/{id}/entitlements') body.memberId = memberId;
  if (write.template === '/api/admin/directories') body.organizationId = world.organizationId;
  return body;
}

/** Every value found under `field` in the answer, at the top or one object down (`{apiKey: {...}}`). */
function valuesOf(body: unknown, field: string): unknown[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const record = body as Record<string, unknown>;
  const nested = Object.values(record).filter(
    (value): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value),
  );
  return [record, ...nested].filter((object) => field in object).map((object) => object[field]);
}

describe('mass assignment: no write applies a read-only or privilege field', () => {
  let t: TestApp;
  let world: AccessWorld;
  let otherOrganization: string;
  const all = writes();

  before(async () => {
    t = await startTestApp({
      dnsLookup: stubDns({ 'example.test': ['93.184.216.34'] }).lookup,
      env: { RATE_LIMIT_ENTERPRISE: '1000000', SCIM_RATE_LIMIT_PER_MINUTE: '1000000', LOGIN_MAX_FAILURES: '1000000' },
    });
    world = await buildAccessWorld(t);
    otherOrganization = (await buildOrganization()).id;
    // a directory user and group behind SCIM's {id}
    for (const [collection, body] of [
      ['/scim/v2/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'probe@example.test' }],
      ['/scim/v2/Groups', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Probe group' }],
    ] as const) {
      const res = await t.http
        .post(collection)
        .set(world.headers.directory)
        .set('Content-Type', 'application/scim+json')
        .send(JSON.stringify(body));
      assert.equal(res.status, 201, `${collection}: ${res.status} ${res.text}`);
      world.values.push([collection, { id: res.body.id }]);
    }
  });
  after(() => t?.close());

  it('every write is refused or leaves the injected fields unapplied, in its answer and in the stored record', async () => {
    const failures: string[] = [];
    const outcomes = { refused: 0, accepted: 0, other: [] as string[] };
    const getTemplates = new Set(
      Object.entries(contract.paths)
        .filter(([, item]) => item.get)
        .map(([template]) => template),
    );
    for (const write of all) {
      const fields = injections(write);
      const path = fillPath(world, write.template);
      const where = `${write.method.toUpperCase()} ${write.template} as ${write.caller}`;
      const member = write.template.endsWith('/entitlements') ? (await buildMember(world.organizationId)).id : '';
      const probe = async (round: 0 | 1) => {
        const injected = Object.fromEntries(
          Object.entries(fields).map(([name, schema]) => [name, injectedValue(name, schema, otherOrganization, round)]),
        );
        const privileges = write.template.startsWith('/scim/')
          ? { organizationId: otherOrganization, role: 'ROLE_PLATFORM_ADMIN', isPlatformAdmin: true }
          : {};
        const res = await t.http[write.method](path)
          .set(world.headers[write.caller])
          .set('Content-Type', write.mediaType)
          .send(JSON.stringify({ ...validBody(write, world, member), ...privileges, ...injected }));
        // the record as stored: read back where the contract reads it
        let stored: unknown;
        const created = typeof res.body?.id === 'string' ? res.body.id : undefined;
        const readBack =
          write.method === 'post' && created && getTemplates.has(`${write.template}/{id}`)
            ? `${path}/${created}`
            : write.method !== 'post' && getTemplates.has(write.template)
              ? path
              : undefined;
        if (res.status < 300 && readBack) stored = (await t.http.get(readBack).set(world.headers[write.caller])).body;
        const applied = Object.keys(injected).filter((name) =>
          [res.body, stored].some((body) =>
            valuesOf(body, name).some((value) => isDeepStrictEqual(value, injected[name])),
          ),
        );
        return { res, applied };
      };
      const first = await probe(0);
      if (first.res.status === 400 || first.res.status === 422) {
        // refused for an injected field, not for a flaw of the base body (which would prove nothing)
        const named = JSON.stringify(first.res.body?.errors ?? first.res.body?.detail ?? '');
        if (Object.keys(fields).some((name) => named.includes(name))) outcomes.refused += 1;
        else outcomes.other.push(`${where}: ${first.res.status} ${named.slice(0, 200)}`);
        continue;
      }
      if (first.res.status >= 300) {
        outcomes.other.push(`${where}: ${first.res.status} ${first.res.body?.code ?? first.res.body?.detail ?? ''}`);
        continue;
      }
      outcomes.accepted += 1;
      if (first.applied.length === 0) continue;
      const second = await probe(1);
      const confirmed = first.applied.filter((name) => second.applied.includes(name));
      if (confirmed.length) failures.push(`${where}: applied ${confirmed.join(', ')}`);
    }
    if (process.env.MASS_ASSIGNMENT_REPORT) console.log(JSON.stringify(outcomes, null, 1));
    assert.deepEqual(failures, [], `${failures.length} writes applied injected fields`);
    assert.ok(all.length >= 40, `only ${all.length} writes with a JSON body in the contract`);
    assert.deepEqual(outcomes.other, [], 'probes that proved nothing (neither refused for a field nor accepted)');
    assert.ok(outcomes.accepted >= 4, `only ${outcomes.accepted} probes were accepted: the read-back was never tested`);
  });

  it('no row anywhere belongs to the organization the probes named, and no platform admin was created', async () => {
    const sequelize = t.db.sequelize;
    const [tables] = (await sequelize.query(
      `SELECT table_name FROM information_schema.columns
        WHERE column_name = 'organization_id' AND table_schema = current_schema()`,
    )) as [Array<{ table_name: string }>, unknown];
    assert.ok(tables.length >= 10, `only ${tables.length} tables with organization_id`);
    const landed: string[] = [];
    for (const { table_name: table } of tables) {
      const [[row]] = (await sequelize.query(`SELECT count(*)::int AS n FROM "${table}" WHERE organization_id = $1`, {
        bind: [otherOrganization],
      })) as [Array<{ n: number }>, unknown];
      if (row!.n > 0) landed.push(`${table}: ${row!.n}`);
    }
    assert.deepEqual(landed, []);
    const [[admins]] = (await sequelize.query(
      `SELECT count(*)::int AS n FROM users WHERE role = 'ROLE_PLATFORM_ADMIN'`,
    )) as [Array<{ n: number }>, unknown];
    assert.equal(admins!.n, 2, 'the two platform admins of the fixture, and no other');
  });
});
