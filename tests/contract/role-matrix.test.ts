// The role × operation matrix, generated from openapi.yaml: every operation is sent by every caller
// kind (anonymous, a malformed, an expired and a revoked credential, member, sponsor admin, client
// user, client admin, API key, platform admin, a read-only impersonation token, a directory's SCIM
// token) and must answer what the operation's `x-guildhall-access` says: an allowed caller never gets
// 401 or 403, a refused one gets 401 (no credential the operation takes) or 403 (one it takes, without
// the permission), as problem+json (SCIM errors in SCIM's format). The same declarations are published
// in docs/access.md, which must equal the table rendered from the contract.
// A caller of another organization, of every kind, addressing a record by `{id}` gets 404 (or the
// refusal its kind gets anyway); lists across organizations are tests/access/cross-tenant.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadContract } from '../../src/http/openapi.ts';
import { operations, type Operation } from '../access/contract-walk.ts';
import { PASSWORD } from '../factories/index.ts';
import { stubDns } from '../factories/dns.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import {
  type AccessWorld,
  BROKEN_CREDENTIALS,
  buildAccessWorld,
  type Caller,
  fillPath,
} from '../support/access-callers.ts';
import {
  accessRows,
  CALLER_KINDS,
  type CallerKind,
  publishedAccessTable,
  renderAccessTable,
} from '../support/access-table.ts';

/** Refused callers first, so a record is still there when the first allowed caller writes or deletes it. */
const CALLERS: Caller[] = [
  'anonymous',
  ...BROKEN_CREDENTIALS,
  'directory',
  'member',
  'sponsor_admin',
  'impersonation',
  'client_user',
  'api_key',
  'client_admin',
  'platform_admin',
];

/** Operations outside one organization's rows (reasons in tests/access/cross-tenant.test.ts). */
const OUTSIDE_TENANCY = /^\/(scim|auth|webhooks)\/|^\/api\/(admin|public)\/|^\/api\/auth\/(?!sso\/connections)/;
/** Callers that belong to an organization and act on its records. */
const TENANT_CALLERS: Caller[] = [
  'member',
  'sponsor_admin',
  'impersonation',
  'client_user',
  'api_key',
  'client_admin',
  'platform_admin',
];

/** Whoever impersonates cannot start another, in either mode: the contract's 409, before any other check. */
const START_IMPERSONATION = '/api/admin/users/{id}/impersonate';

/** Kinds whose credential the surface does not take at all: refused with 401 rather than 403. */
function refusalStatus(template: string, caller: Caller): number {
  if (caller === 'anonymous' || (BROKEN_CREDENTIALS as readonly string[]).includes(caller)) return 401;
  if (template.startsWith('/scim/')) return 401; // only a directory's SCIM token
  if (caller === 'directory') return 401; // a SCIM token is nothing outside /scim
  if (template === '/webhooks/idp') return 401; // the identity service's signature only
  if (template === START_IMPERSONATION && caller === 'impersonation') return 409;
  return 403;
}

/** Deletes after every other operation on the same records, and ending the impersonation last of all. */
function order(all: Operation[]): Operation[] {
  const rank = (o: Operation) => (o.template === '/api/admin/impersonate' ? 2 : o.method === 'delete' ? 1 : 0);
  return [...all].sort((a, b) => rank(a) - rank(b));
}

/** The codes of a refusal about the caller (a 401 or 403 with another code is the operation's own answer, e.g. a wrong password). */
const ACCESS_CODES = new Set([
  'unauthenticated',
  'token_expired',
  'forbidden',
  'read_only_impersonation',
  'organization_suspended',
  'mfa_required',
]);

function refusedForAccess(template: string, res: { status: number; body: any }): boolean {
  if (template === START_IMPERSONATION && res.status === 409) return res.body?.code === 'already_impersonating';
  if (res.status !== 401 && res.status !== 403) return false;
  return template.startsWith('/scim/') || ACCESS_CODES.has(res.body?.code);
}

function errorFormat(template: string, res: { status: number; headers: Record<string, string>; body: any }) {
  const type = res.headers['content-type'] ?? '';
  if (template.startsWith('/scim/')) {
    return type.startsWith('application/scim+json') &&
      res.body?.schemas?.includes('urn:ietf:params:scim:api:messages:2.0:Error') &&
      res.body.status === String(res.status)
      ? undefined
      : `not a SCIM error (${type})`;
  }
  if (template.startsWith('/auth/') && type.startsWith('text/html')) return undefined; // the browser's pages
  return type.startsWith('application/problem+json') && res.body?.status === res.status && res.body?.title
    ? undefined
    : `not problem+json (${type})`;
}

describe('role × operation matrix, generated from the contract', () => {
  let t: TestApp;
  let world: AccessWorld;
  /** The same callers in another organization. */
  let other: AccessWorld;
  const rows = accessRows();
  const allowedOf = new Map(rows.map((row) => [`${row.method} ${row.template}`, row.allowed]));

  before(async () => {
    t = await startTestApp({
      dnsLookup: stubDns({ 'example.test': ['93.184.216.34'] }).lookup,
      env: {
        RATE_LIMIT_STANDARD: '1000000',
        RATE_LIMIT_PROFESSIONAL: '1000000',
        RATE_LIMIT_ENTERPRISE: '1000000',
        SCIM_RATE_LIMIT_PER_MINUTE: '1000000',
        LOGIN_MAX_FAILURES: '1000000',
        IMPERSONATION_MAX_PER_HOUR: '1000',
      },
    });
    world = await buildAccessWorld(t);
    other = await buildAccessWorld(t);
  });
  after(() => t?.close());

  it('every operation declares who may call it, with known caller kinds', () => {
    const known = new Set(['any', ...Object.keys(CALLER_KINDS)]);
    const undeclared = rows.filter((row) => !row.allowed).map((row) => `${row.method.toUpperCase()} ${row.template}`);
    assert.deepEqual(undeclared, [], `add x-guildhall-access to:\n${undeclared.join('\n')}`);
    const unknown = rows.flatMap((row) =>
      (row.allowed ?? []).filter((kind) => !known.has(kind)).map((kind) => `${row.template}: ${kind}`),
    );
    assert.deepEqual(unknown, []);
    const mixed = rows.filter((row) => row.allowed?.includes('any') && row.allowed.length > 1);
    assert.deepEqual(mixed, [], '`any` stands alone: everyone, credentials unread');
    assert.ok(rows.length >= 150, `the walk found only ${rows.length} operations`);
  });

  it("every allowed caller's credential is one the operation's security requirements name", () => {
    const { document } = loadContract();
    const contract = document as unknown as {
      security: Array<Record<string, unknown>>;
      paths: Record<string, Record<string, { security?: Array<Record<string, unknown>> }>>;
    };
    const SCHEMES: Partial<Record<CallerKind, string[]>> = {
      member: ['bearerToken'],
      sponsor_admin: ['bearerToken'],
      client_user: ['bearerToken'],
      client_admin: ['bearerToken'],
      impersonation: ['bearerToken'],
      platform_admin: ['bearerToken', 'adminToken'],
      api_key: ['apiKey'],
      directory: ['scimToken'],
    };
    const disagreements = rows.flatMap((row) => {
      const security = contract.paths[row.template]![row.method]!.security ?? contract.security;
      const schemes = security.flatMap((requirement) => Object.keys(requirement));
      if (security.length === 0 || row.allowed?.includes('any')) return [];
      return (row.allowed ?? [])
        .filter((kind) => kind !== 'any' && !SCHEMES[kind]?.some((scheme) => schemes.includes(scheme)))
        .map(
          (kind) =>
            `${row.method.toUpperCase()} ${row.template}: ${kind} allowed, security names ${schemes.join(', ')}`,
        );
    });
    assert.deepEqual(disagreements, []);
  });

  it("docs/access.md publishes exactly the contract's table", () => {
    assert.equal(
      publishedAccessTable(),
      renderAccessTable(rows),
      'docs/access.md differs from openapi.yaml: run npx tsx tests/support/access-table.ts --write',
    );
  });

  it("every caller kind of another organization gets 404 for the organization's records by {id}, or its refusal", async () => {
    // tests/access/cross-tenant.test.ts walks the same operations with another organization's client
    // admin (and its lists); here every other caller kind too, before the matrix below deletes records
    const failures: string[] = [];
    let sent = 0;
    for (const operation of operations()) {
      const declared = allowedOf.get(`${operation.method} ${operation.template}`) ?? [];
      if (!operation.template.includes('{') || OUTSIDE_TENANCY.test(operation.template) || declared.includes('any'))
        continue;
      const url = fillPath(world, operation.template);
      for (const caller of TENANT_CALLERS) {
        const request = t.http[operation.method](url).set(operation.headers).set(other.headers[caller]);
        const res = await (operation.body === undefined ? request : request.send(operation.body as object));
        sent += 1;
        const where = `${operation.method.toUpperCase()} ${operation.template} as another organization's ${caller}`;
        const allowed = (declared as string[]).includes(caller);
        const expected = allowed ? 404 : refusalStatus(operation.template, caller);
        if (res.status !== expected || (!allowed && !refusedForAccess(operation.template, res)))
          failures.push(`${where}: ${expected} expected, got ${res.status} ${res.text.slice(0, 160)}`);
        else if (allowed && res.body?.code !== 'not_found') failures.push(`${where}: 404 without not_found`);
        else if (JSON.stringify(res.body).includes(world.organizationId))
          failures.push(`${where}: names the organization`);
      }
    }
    assert.ok(sent >= 350, `only ${sent} requests were sent`);
    assert.deepEqual(failures, [], `${failures.length} of ${sent} answers leak across organizations or differ`);
  });

  it('a caller an operation is not open to gets its refusal even when the inputs are wrong too, never the 400', async () => {
    // an undeclared query parameter is a 400 on every operation, before any service runs: the input
    // checks must not tell a refused caller how the operation's inputs are shaped
    const failures: string[] = [];
    let sent = 0;
    for (const operation of operations()) {
      const declared = (allowedOf.get(`${operation.method} ${operation.template}`) ?? []) as string[];
      if (!operation.template.startsWith('/api/') || declared.includes('any')) continue;
      const url = `${fillPath(world, operation.template)}?guildhallProbe=1`;
      for (const caller of TENANT_CALLERS.filter((kind) => !declared.includes(kind))) {
        const request = t.http[operation.method](url).set(operation.headers).set(world.headers[caller]);
        const res = await (operation.body === undefined ? request : request.send(operation.body as object));
        sent += 1;
        if (res.status !== 403 || !refusedForAccess(operation.template, res))
          failures.push(
            `${operation.method.toUpperCase()} ${operation.template} as ${caller}: 403 expected, got ${res.status} ${res.text.slice(0, 160)}`,
          );
      }
    }
    assert.ok(sent >= 300, `only ${sent} requests were sent`);
    assert.deepEqual(failures, [], `${failures.length} of ${sent} refused callers were told about their inputs`);
  });

  it('every operation, sent by every caller kind, answers what its x-guildhall-access says', async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const operation of order(operations())) {
      const declared = allowedOf.get(`${operation.method} ${operation.template}`) ?? [];
      const url = fillPath(world, operation.template);
      let first: number | undefined;
      for (const caller of CALLERS) {
        let body = operation.body;
        // inputs that pass the operation's own checks, so that a refusal can only be about the caller
        if (operation.template === '/api/auth/login') body = { email: world.users.member.email, password: PASSWORD };
        if (operation.template === '/api/auth/mfa/verify') body = { code: '123456' };
        const request = t.http[operation.method](url).set(operation.headers).set(world.headers[caller]);
        const res = await (body === undefined ? request : request.send(body as object));
        sent += 1;
        const where = `${operation.method.toUpperCase()} ${operation.template} as ${caller}`;
        const answer = `${res.status} ${res.text.slice(0, 160)}`;
        // 503: a dependency the test app has not configured (the CRM's app), never the caller
        if (res.status >= 500 && res.status !== 503) {
          failures.push(`${where}: ${answer}`);
          continue;
        }
        if (declared.includes('any')) {
          // credentials are not read: every caller, a broken credential too, gets the anonymous answer
          first ??= res.status;
          if (res.status !== first) failures.push(`${where}: ${res.status}, the anonymous caller got ${first}`);
          continue;
        }
        if ((declared as string[]).includes(caller)) {
          if (refusedForAccess(operation.template, res)) failures.push(`${where}: allowed, refused with ${answer}`);
          continue;
        }
        const expected = refusalStatus(operation.template, caller);
        if (res.status !== expected || !refusedForAccess(operation.template, res))
          failures.push(`${where}: refused with ${expected} expected, got ${answer}`);
        else {
          const wrong = errorFormat(operation.template, res);
          if (wrong) failures.push(`${where}: ${res.status} ${wrong}`);
        }
      }
    }
    assert.ok(sent >= rows.length * CALLERS.length, `only ${sent} requests were sent`);
    assert.deepEqual(failures, [], `${failures.length} of ${sent} answers differ from the table`);
  });
});
