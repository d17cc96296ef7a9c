// Contract fuzzing: every operation of openapi.yaml (SCIM and the inbound webhooks included) gets
// generated inputs that are invalid by the contract: the wrong JSON type, a required field missing, an
// unknown field, a string past its maxLength, a number past its bounds, NUL and unpaired surrogates,
// malformed JSON, the wrong content type, ids that are not UUIDs, duplicated and bracketed query
// parameters. Whatever arrives, the service answers below 500, its errors are problem+json (SCIM's
// own format under /scim, an HTML page on the browser surfaces), and an input the contract forbids is
// never accepted. Successes are checked against the contract by the harness (a drift is a 500).
// Seeded and reproducible: FUZZ_SEED picks the cases, FUZZ_RUNS how many per operation (default 4).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { loadContract } from '../../src/http/openapi.ts';
import { bearer, buildOrganization, buildUser, mfaVerifiedTokenFor } from '../factories/index.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { METHODS, type Method, operations, sample } from '../access/contract-walk.ts';
import { ORGANIZATION_HEADER } from '../../src/shared/access/tenancy.ts';

type Schema = Record<string, any>;
const SEED = Number(process.env.FUZZ_SEED ?? 20261127);
const RUNS = Number(process.env.FUZZ_RUNS ?? 4);

const { document } = loadContract();
const contract = document as unknown as {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema>; parameters: Record<string, Schema> };
};
const resolve = (schema: Schema): Schema => {
  let current = schema;
  while (current?.$ref) current = contract.components.schemas[String(current.$ref).split('/').pop()!]!;
  return current ?? {};
};
const parameterOf = (p: Schema): Schema =>
  p.$ref ? contract.components.parameters[String(p.$ref).split('/').pop()!]! : p;

interface Rng {
  nextInt(min: number, max: number): number;
}

/** mulberry32: which field a case breaks, reproducible from the seed (fast-check draws the values). */
function seeded(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return { nextInt: (min, max) => min + Math.floor(next() * (max - min + 1)) };
}

interface Case {
  /** What the case breaks, for the failure message. */
  what: string;
  path: string;
  query?: string;
  body?: string;
  contentType?: string;
  /** The contract forbids this input: it must be refused (4xx). */
  mustRefuse: boolean;
}

interface FuzzOperation {
  method: Method;
  template: string;
  schema?: Schema;
  mediaType?: string;
  queryParameters: Schema[];
}

function fuzzOperations(): FuzzOperation[] {
  return Object.entries(contract.paths).flatMap(([template, item]) =>
    METHODS.filter((method) => item[method]).map((method) => {
      const operation = item[method]!;
      const content: Record<string, Schema> = operation.requestBody?.content ?? {};
      const mediaType = Object.keys(content).find((type) => type.includes('json'));
      const parameters = [...((item.parameters ?? []) as Schema[]), ...((operation.parameters ?? []) as Schema[])].map(
        parameterOf,
      );
      return {
        method,
        template,
        ...(mediaType ? { mediaType, schema: resolve(content[mediaType]!.schema ?? {}) } : {}),
        queryParameters: parameters.filter((p) => p.in === 'query'),
      };
    }),
  );
}

/** Nasty strings: NUL, unpaired surrogates, RTL and zero-width marks, path tricks, SQL and template noise. */
const nastyString = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff x',
    '\u202e\u200b',
    '../../etc/passwd',
    "' OR 1=1 --",
    '{{7*7}}',
    '%00',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
const notUuid = fc.constantFrom(
  'not-a-uuid',
  '123',
  '00000000-0000-0000-0000-00000000000g',
  "'; DROP TABLE users; --",
  '%2e%2e',
);

const typeOf = (schema: Schema): string | undefined =>
  Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;

/** A value of the wrong JSON type for `schema` (never one it accepts). */
function wrongType(schema: Schema): unknown {
  const type = typeOf(schema);
  const nullable = Array.isArray(schema.type) && schema.type.includes('null');
  const candidates: unknown[] = [{ nested: true }, [1, 2], 'text', 12345, true, ...(nullable ? [] : [null])];
  return candidates.find((value) => {
    if (type === 'object') return typeof value !== 'object' || Array.isArray(value) || value === null;
    if (type === 'array') return !Array.isArray(value);
    if (type === 'string') return typeof value !== 'string';
    if (type === 'integer' || type === 'number') return typeof value !== 'number';
    if (type === 'boolean') return typeof value !== 'boolean';
    return false;
  });
}

function bodyCases(operation: FuzzOperation, path: string, random: Rng): Case[] {
  const { schema, mediaType } = operation;
  if (!schema || !mediaType) return [];
  const cases: Case[] = [
    { what: 'malformed JSON', path, body: '{"a": ', contentType: mediaType, mustRefuse: true },
    { what: 'the wrong content type', path, body: 'name=x', contentType: 'text/plain', mustRefuse: true },
  ];
  const base = sample(schema);
  const wrongBody = wrongType(schema);
  if (wrongBody !== undefined && !schema.oneOf && !schema.anyOf) {
    cases.push({
      what: 'a body of the wrong type',
      path,
      body: JSON.stringify(wrongBody),
      contentType: mediaType,
      mustRefuse: true,
    });
  }
  if (typeOf(schema) !== 'object' || typeof base !== 'object' || base === null || Array.isArray(base)) return cases;
  const properties: Record<string, Schema> = schema.properties ?? {};
  const required: string[] = schema.required ?? [];
  const names = Object.keys(properties);
  const pick = <T>(items: T[]): T | undefined =>
    items.length ? items[random.nextInt(0, items.length - 1)] : undefined;
  const missing = pick(required);
  if (missing) {
    const { [missing]: _, ...rest } = base as Record<string, unknown>;
    cases.push({
      what: `required ${missing} missing`,
      path,
      body: JSON.stringify(rest),
      contentType: mediaType,
      mustRefuse: true,
    });
  }
  if (schema.additionalProperties === false) {
    cases.push({
      what: 'an unknown field',
      path,
      body: JSON.stringify({ ...(base as object), isAdmin: true, role: 'ROLE_PLATFORM_ADMIN_X', __proto__x: 1 }),
      contentType: mediaType,
      mustRefuse: true,
    });
  }
  const field = pick(names);
  if (field) {
    const fieldSchema = resolve(properties[field]!);
    const wrong = wrongType(fieldSchema);
    if (wrong !== undefined && !fieldSchema.oneOf && !fieldSchema.anyOf && typeOf(fieldSchema)) {
      cases.push({
        what: `${field} of the wrong type`,
        path,
        body: JSON.stringify({ ...(base as object), [field]: wrong }),
        contentType: mediaType,
        mustRefuse: true,
      });
    }
    if (typeOf(fieldSchema) === 'string' && fieldSchema.maxLength !== undefined && !fieldSchema.enum) {
      cases.push({
        what: `${field} past its maxLength`,
        path,
        body: JSON.stringify({ ...(base as object), [field]: 'x'.repeat(fieldSchema.maxLength + 1) }),
        contentType: mediaType,
        mustRefuse: true,
      });
    }
    if (typeOf(fieldSchema) === 'integer' && fieldSchema.maximum !== undefined) {
      cases.push({
        what: `${field} past its maximum`,
        path,
        body: JSON.stringify({ ...(base as object), [field]: 1e308 }),
        contentType: mediaType,
        mustRefuse: true,
      });
    }
    const stringField = pick(names.filter((name) => typeOf(resolve(properties[name]!)) === 'string'));
    if (stringField) {
      const [nasty] = fc.sample(nastyString, { seed: random.nextInt(0, 2 ** 31 - 1), numRuns: 1 });
      cases.push({
        what: `${stringField} = ${JSON.stringify(nasty)}`,
        path,
        body: JSON.stringify({ ...(base as object), [stringField]: nasty }),
        contentType: mediaType,
        mustRefuse: false,
      });
    }
  }
  return cases;
}

function queryCases(operation: FuzzOperation, path: string): Case[] {
  const names = new Set(operation.queryParameters.map((p) => p.name as string));
  const cases: Case[] = [];
  if (names.has('page')) {
    cases.push({ what: 'page=-1', path, query: 'page=-1', mustRefuse: true });
    cases.push({ what: 'page twice', path, query: 'page=1&page=2', mustRefuse: false });
  }
  if (names.has('itemsPerPage'))
    cases.push({ what: 'itemsPerPage=abc', path, query: 'itemsPerPage=abc', mustRefuse: true });
  cases.push({ what: 'bracketed parameter', path, query: 'order[__proto__]=asc&filter[a][b][c]=1', mustRefuse: false });
  return cases;
}

describe('contract fuzzing: every operation, invalid inputs', () => {
  let t: TestApp;
  let platformToken: string;
  let scimToken: string;
  const failures: string[] = [];
  let sent = 0;

  before(async () => {
    t = await startTestApp({
      env: {
        RATE_LIMIT_STANDARD: '1000000',
        RATE_LIMIT_PROFESSIONAL: '1000000',
        RATE_LIMIT_ENTERPRISE: '1000000',
        SCIM_RATE_LIMIT_PER_MINUTE: '1000000',
        LOGIN_MAX_FAILURES: '1000000',
      },
    });
    platformToken = await mfaVerifiedTokenFor(t, await buildUser({ role: 'ROLE_PLATFORM_ADMIN' }));
    const organization = await buildOrganization({ plan: 'enterprise' });
    const directory = await t.http
      .post('/api/admin/directories')
      .set(bearer(platformToken))
      .send({ organizationId: organization.id, name: 'Fuzz', provider: 'scim' })
      .expect(201);
    scimToken = directory.body.token;
  });
  after(async () => {
    await t?.close();
  });

  function credentialFor(template: string): Record<string, string> {
    if (template.startsWith('/scim/')) return bearer(scimToken);
    if (template.startsWith('/api/')) return bearer(platformToken);
    return {};
  }

  /** What an error must look like on this path's surface. */
  function checkError(template: string, status: number, type: string | undefined, body: unknown): string | undefined {
    if (template.startsWith('/auth/'))
      return type?.startsWith('text/html') || type?.includes('json') ? undefined : `a ${type} error page`;
    if (template.startsWith('/scim/')) {
      const scim = body as { schemas?: string[]; status?: string };
      return type?.startsWith('application/scim+json') &&
        scim.schemas?.includes('urn:ietf:params:scim:api:messages:2.0:Error') &&
        scim.status === String(status)
        ? undefined
        : `not a SCIM error (${type})`;
    }
    const problem = body as { type?: string; title?: string; status?: number };
    return type?.startsWith('application/problem+json') && problem.title && problem.status === status
      ? undefined
      : `not problem+json (${type})`;
  }

  it("no input gets a 5xx, every error is in its surface's format, and nothing the contract forbids is accepted", async () => {
    const random = seeded(SEED);
    for (const operation of fuzzOperations()) {
      for (let run = 0; run < RUNS; run++) {
        const ids = operation.template.includes('{')
          ? [randomUUID(), ...fc.sample(notUuid, { seed: SEED + run, numRuns: 1 })]
          : [''];
        for (const id of ids) {
          const path = operation.template.replace(/\{[^}]+\}/g, encodeURIComponent(id));
          const uuidShaped = /^[0-9a-f-]{36}$/.test(id);
          const cases = [...bodyCases(operation, path, random), ...(run === 0 ? queryCases(operation, path) : [])];
          for (const c of cases) {
            let request = t.http[operation.method](c.query ? `${c.path}?${c.query}` : c.path).set(
              credentialFor(operation.template),
            );
            if (c.body !== undefined)
              request = request.set('Content-Type', c.contentType ?? 'application/json').send(c.body);
            const res = await request;
            sent += 1;
            const where = `${operation.method.toUpperCase()} ${operation.template} (${c.what}${uuidShaped || !id ? '' : `, id ${id}`})`;
            if (res.status >= 500) failures.push(`${where}: ${res.status} ${res.text.slice(0, 200)}`);
            else if (res.status >= 400) {
              const wrong = checkError(operation.template, res.status, res.headers['content-type'], res.body);
              if (wrong) failures.push(`${where}: ${res.status} ${wrong}`);
            } else if (c.mustRefuse) failures.push(`${where}: accepted with ${res.status}`);
          }
        }
      }
    }
    assert.ok(sent > 1000, `only ${sent} cases were sent`);
    assert.deepEqual(failures, [], `${failures.length} of ${sent} cases failed (seed ${SEED})`);
  });

  it('a platform admin outside any organization gets 422 naming the organization header from every tenant operation', async () => {
    const refusals: string[] = [];
    for (const operation of operations()) {
      if (!operation.template.startsWith('/api/') || /^\/api\/(admin|auth)\//.test(operation.template)) continue;
      let request = t.http[operation.method](operation.template.replace(/\{[^}]+\}/g, randomUUID()))
        .set(bearer(platformToken))
        .set(operation.headers);
      if (operation.body !== undefined) request = request.send(operation.body as object);
      const res = await request;
      if (res.status >= 500) refusals.push(`${operation.method} ${operation.template}: ${res.status}`);
      if (res.status === 422 && res.body.errors?.[0]?.field !== ORGANIZATION_HEADER) {
        refusals.push(`${operation.method} ${operation.template}: 422 without the header's name`);
      }
    }
    assert.deepEqual(refusals, []);
  });
});
