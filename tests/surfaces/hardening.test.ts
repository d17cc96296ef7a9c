// Issue 9: authenticate first, strict body types, bracketed scalars, and the server's own limits
// (431, trickled bodies, early 413) checked on a real listening server with raw sockets.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { loadContract } from '../../src/http/openapi.ts';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { buildAdmin } from '../factories/mfa.ts';
import { expectProblem } from '../setup/problem.ts';
import { connect, listen } from '../setup/raw-http.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('HTTP hardening', () => {
  let t: TestApp;
  let token: string;
  let adminToken: string;
  let organizationId: string;
  let server: Awaited<ReturnType<typeof listen>>;
  before(async () => {
    t = await startTestApp({ env: { HTTP_BODY_TIMEOUT_MS: '1000' } });
    organizationId = (await buildOrganization()).id;
    token = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
    adminToken = (await buildAdmin(t)).token;
    server = await listen(t);
  });
  after(async () => {
    await server.close();
    await t.close();
  });

  it('when a request to a secured operation has no credential, then 401 comes before any validation', async () => {
    expectProblem(await t.http.post('/api/members').send({}), 401, 'unauthenticated');
    expectProblem(await t.http.get('/api/members?colour=red'), 401, 'unauthenticated');
    expectProblem(
      await t.http.post('/api/api-keys').set('Content-Type', 'application/json').send('{"name": '),
      401,
      'unauthenticated',
    );
    // with a credential the same requests are validated
    const body = expectProblem(await t.http.post('/api/members').set(bearer(token)).send({}), 400, 'validation_failed');
    assert.ok(body.errors.some((e: { field: string }) => e.field === 'firstName'));
  });

  it('when a JSON body has a value of the wrong type, then 400 names it instead of converting it', async () => {
    const member = expectProblem(
      await t.http
        .post('/api/members')
        .set(bearer(token))
        .send({ firstName: 123, lastName: 'Y', email: 'typed@example.test' }),
      400,
      'validation_failed',
    );
    assert.deepEqual(
      member.errors.map((e: { field: string }) => e.field),
      ['firstName'],
    );
    const event = expectProblem(
      await t.http
        .post('/api/events')
        .set(bearer(token))
        .send({ title: 'T', startsAt: '2026-05-01T10:00:00Z', endsAt: '2026-05-01T11:00:00Z', capacity: true }),
      400,
      'validation_failed',
    );
    assert.deepEqual(
      event.errors.map((e: { field: string }) => e.field),
      ['capacity'],
    );
    expectProblem(await t.http.post('/api/api-keys').set(bearer(token)).send({ name: true }), 400, 'validation_failed');
    // query strings are still read as the types they declare
    const page = await t.http.get('/api/members?page=1&itemsPerPage=5').set(bearer(token)).expect(200);
    assert.equal(page.body.pagination.itemsPerPage, 5);
  });

  it('when a date or date-time does not exist on the calendar, then 400 names it instead of storing the day it rolls over to', async () => {
    // 30 February used to be accepted and stored as 2 March
    const event = expectProblem(
      await t.http
        .post('/api/events')
        .set(bearer(token))
        .send({ title: 'T', startsAt: '2026-02-30T10:00:00Z', endsAt: '2026-05-01T11:00:00Z' }),
      400,
      'validation_failed',
    );
    assert.deepEqual(
      event.errors.map((e: { field: string }) => e.field),
      ['startsAt'],
    );
    const member = expectProblem(
      await t.http
        .post('/api/members')
        .set(bearer(token))
        .send({ firstName: 'A', lastName: 'B', email: 'leap@example.test', joinedAt: '2025-02-29' }),
      400,
      'validation_failed',
    );
    assert.deepEqual(
      member.errors.map((e: { field: string }) => e.field),
      ['joinedAt'],
    );
    const leap = await t.http
      .post('/api/members')
      .set(bearer(token))
      .send({ firstName: 'A', lastName: 'B', email: 'leap@example.test', joinedAt: '2024-02-29' })
      .expect(201);
    assert.equal(leap.body.joinedAt, '2024-02-29');
    expectProblem(
      await t.http.get('/api/events?startsAt[after]=2026-02-30T00:00:00Z').set(bearer(token)),
      400,
      'invalid_filter',
    );
  });

  it('when one field breaks several rules, then each rule is an error but the detail names the field once', async () => {
    const body = expectProblem(
      await t.http.get('/api/members?page=99999999999').set(bearer(token)),
      400,
      'validation_failed',
    );
    assert.ok(body.errors.length >= 2, JSON.stringify(body.errors));
    assert.ok(body.errors.every((e: { field: string }) => e.field === 'page'));
    assert.equal(body.detail, '1 field(s) failed validation: page');
  });

  it('when a scalar query parameter is sent in brackets, then 401 without a credential and 400 naming it with one', async () => {
    for (const query of ['status[x]=active', 'role[x]=ROLE_MEMBER', 'status[99999999]=active']) {
      expectProblem(await t.http.get(`/api/admin/users?${query}`), 401, 'unauthenticated');
      const body = expectProblem(
        await t.http.get(`/api/admin/users?${query}`).set(bearer(adminToken)),
        400,
        'invalid_filter',
      );
      assert.equal(body.errors[0].field, query.split('=')[0]);
    }
    await t.http.get('/api/admin/users?status=active&status=inactive').set(bearer(adminToken)).expect(200);
  });

  it('when the request line and headers exceed 16 KB, then 431 problem+json with a request id', async () => {
    const client = connect(server.port);
    client.socket.write(`GET /health HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    const res = await client.response(5_000);
    assert.equal(res.status, 431);
    assert.match(res.headers['content-type']!, /^application\/problem\+json/);
    const body = JSON.parse(res.body);
    assert.equal(body.code, 'headers_too_large');
    assert.equal(body.requestId, res.headers['x-request-id']);
    assert.match(body.type, /\/errors\/headers_too_large$/);
    await client.closed;
  });

  it('when a body trickles in a byte at a time, then it is cut at the body timeout with 408', async () => {
    const client = connect(server.port);
    const body = JSON.stringify({ email: 'slow@example.test', password: 'x'.repeat(40) });
    client.socket.write(
      `POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const started = Date.now();
    let sent = 0;
    const trickle = setInterval(
      () => sent < body.length && !client.socket.destroyed && client.socket.write(body[sent++]!),
      200,
    );
    try {
      const res = await client.response(6_000);
      assert.equal(res.status, 408);
      assert.equal(JSON.parse(res.body).code, 'request_timeout');
      assert.ok(Date.now() - started < 3_000, 'answered at the 1 s body timeout');
      assert.ok(sent < body.length);
      await client.closed;
    } finally {
      clearInterval(trickle);
    }
  });

  it('when a body announces more than the limit, then 413 at once and the rest is not read', async () => {
    for (const credential of [bearer(token).Authorization, undefined]) {
      const client = connect(server.port);
      const auth = credential ? `Authorization: ${credential}\r\n` : '';
      client.socket.write(
        `POST /api/api-keys HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n{"name":"`,
      );
      const res = await client.response(3_000);
      assert.equal(res.status, credential ? 413 : 401);
      assert.equal(res.headers.connection, 'close');
      // the server closes its side rather than draining 50 MB
      let written = 0;
      const chunk = Buffer.alloc(64 * 1024, 'a');
      while (!client.closedAt && written < 50 * 1024 * 1024) {
        if (!client.socket.write(chunk))
          await Promise.race([
            new Promise((r) => client.socket.once('drain', r)),
            client.closed,
            new Promise((r) => setTimeout(r, 3_000)),
          ]);
        if (client.socket.writableNeedDrain) break; // the server stopped reading: flow control holds us
        written += chunk.length;
      }
      assert.ok(written < 20 * 1024 * 1024, `the client could push ${written} bytes after the answer`);
      client.socket.destroy();
    }
  });

  it('when a query parameter is sent to an operation that takes none, then the 400 is one the contract declares', async () => {
    const paths = loadContract().document.paths!;
    for (const [path, method] of [
      ['/health', 'get'],
      ['/ready', 'get'],
      ['/api/auth/me', 'get'],
      ['/api/auth/mfa/enrollment', 'post'],
      ['/api/admin/impersonate', 'delete'],
      ['/api/webhooks/event-types', 'get'],
    ] as const) {
      const operation = (paths[path] as Record<string, { responses: Record<string, unknown> }>)[method]!;
      assert.ok(operation.responses['400'], `${method} ${path} declares its 400`);
    }
    for (const path of ['/health?x=1', '/ready?x=1']) expectProblem(await t.http.get(path), 400, 'invalid_filter');
    expectProblem(await t.http.get('/api/auth/me?x=1').set(bearer(token)), 400, 'invalid_filter');
    expectProblem(await t.http.get('/api/webhooks/event-types?x=1').set(bearer(token)), 400, 'invalid_filter');
  });

  it('when Guildhall-Organization names no organization, then 400 naming the header on any operation', async () => {
    const body = expectProblem(
      await t.http
        .get('/api/auth/me')
        .set(bearer(adminToken))
        .set('Guildhall-Organization', '00000000-0000-4000-8000-000000000000'),
      400,
      'validation_failed',
    );
    assert.equal(body.errors[0].field, 'Guildhall-Organization');
    expectProblem(
      await t.http.get('/api/admin/jobs').set(bearer(adminToken)).set('Guildhall-Organization', 'not-a-uuid'),
      400,
      'validation_failed',
    );
    await t.http.get('/api/members').set(bearer(adminToken)).set('Guildhall-Organization', organizationId).expect(200);
  });

  it('when TRUST_PROXY names the proxy, then its X-Forwarded-Proto makes the request secure', async () => {
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, uniquelocal' }).http.trustProxy, [
      '10.0.0.0/8',
      'uniquelocal',
    ]);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).http.trustProxy, 2);
    assert.throws(() => loadConfig({ TRUST_PROXY: 'everyone' }), /TRUST_PROXY/);
    // the app honours what the configuration names: a proxy on the private network, not the whole internet
    const app = createApp({
      ...t.container,
      config: { ...t.config, http: { ...t.config.http, trustProxy: ['10.0.0.0/8'] } },
    });
    const trusts = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
    assert.equal(trusts('10.1.2.3', 0), true);
    assert.equal(trusts('203.0.113.9', 0), false);
    assert.equal((t.app.get('trust proxy fn') as typeof trusts)('127.0.0.1', 0), true, 'loopback stays the default');
  });

  it('when the server is built, then keep-alive and header timeouts outlast a 60 s load balancer and are configurable', () => {
    const defaults = loadConfig({}).http;
    assert.ok(defaults.keepAliveTimeoutMs > 60_000 && defaults.headersTimeoutMs > defaults.keepAliveTimeoutMs);
    assert.equal(server.server.keepAliveTimeout, t.config.http.keepAliveTimeoutMs);
    assert.equal(server.server.headersTimeout, t.config.http.headersTimeoutMs);
    const tuned = loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '75000', HTTP_HEADERS_TIMEOUT_MS: '80000' }).http;
    assert.deepEqual([tuned.keepAliveTimeoutMs, tuned.headersTimeoutMs], [75_000, 80_000]);
  });
});
