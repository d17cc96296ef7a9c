import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { canonicalJson } from '../../src/http/idempotency.ts';
import { AuditEntry } from '../../src/modules/audit/audit-entry.model.ts';
import { sha256 } from '../../src/shared/crypto.ts';
import { bearer, buildApiKey, buildUser, tokenFor } from '../factories/index.ts';
import { stubDns } from '../factories/dns.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

// Production rules: https only, no private targets. DNS is stubbed; nothing is ever sent.
describe('webhook subscriptions', () => {
  let t: TestApp;
  let token: string;
  let organizationId: string;
  const dns = stubDns({
    'hooks.partner.test': ['93.184.216.34'],
    'internal.partner.test': ['10.20.30.40'],
    'v6.partner.test': ['2606:4700::1111'],
    'mapped.partner.test': ['::ffff:127.0.0.1'],
  });
  const subscribe = (body: object, as = token) => t.http.post('/api/webhooks').set(bearer(as)).send(body);

  before(async () => {
    t = await startTestApp({ dnsLookup: dns.lookup });
    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    organizationId = admin.organizationId!;
    token = await tokenFor(t, admin);
  });
  after(() => t.close());

  it('when a URL subscribes to events, then the secret is returned once and never listed', async () => {
    const created = await subscribe({
      url: 'https://hooks.partner.test/guildhall',
      events: ['member.created', 'member.updated'],
      description: 'CRM sync',
    }).expect(201);
    assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.equal(created.headers.location, `/api/webhooks/${created.body.id}`);
    assert.deepEqual(created.body.events, ['member.created', 'member.updated']);
    assert.equal(created.body.status, 'active');
    const fetched = await t.http.get(`/api/webhooks/${created.body.id}`).set(bearer(token)).expect(200);
    assert.equal(fetched.body.secret, undefined);
    const listed = await t.http.get('/api/webhooks').set(bearer(token)).expect(200);
    const item = listed.body.data.find((w: { id: string }) => w.id === created.body.id);
    assert.deepEqual(item, fetched.body);
    const [rows] = await t.db.sequelize.query('SELECT secret_sealed FROM webhook_subscriptions WHERE id = $1', {
      bind: [created.body.id],
    });
    assert.ok(
      !(rows as Array<{ secret_sealed: string }>)[0]!.secret_sealed.includes(created.body.secret.slice(6)),
      'sealed at rest',
    );
  });

  it('when a subscription names unknown event kinds or none, then it is a 400', async () => {
    const unknown = expectProblem(
      await subscribe({ url: 'https://hooks.partner.test/x', events: ['member.created', 'member.exploded'] }),
      400,
      'validation_failed',
    );
    assert.match(unknown.errors[0].field, /^events/);
    expectProblem(await subscribe({ url: 'https://hooks.partner.test/x', events: [] }), 400, 'validation_failed');
    expectProblem(await subscribe({ url: 'https://hooks.partner.test/x' }), 400, 'validation_failed');
    expectProblem(await subscribe({ url: 'not a url', events: ['member.created'] }), 400, 'validation_failed');
  });

  it('when the URL is not https or resolves to a private, loopback, link-local or metadata address, then 422 unsafe_webhook_target', async () => {
    const cases: Array<[string, RegExp]> = [
      ['http://hooks.partner.test/x', /https/],
      ['https://internal.partner.test/x', /private address \(10\.20\.30\.40\)/],
      ['https://mapped.partner.test/x', /loopback/],
      ['https://127.0.0.1/x', /loopback/],
      ['https://[::1]:8443/x', /loopback/],
      ['https://169.254.169.254/latest/meta-data/', /link-local/],
      ['https://[fd00:ec2::254]/latest', /metadata/],
      ['https://192.168.0.10/x', /private/],
      ['https://unknown.partner.test/x', /does not resolve/],
    ];
    for (const [url, reason] of cases) {
      const problem = expectProblem(await subscribe({ url, events: ['member.created'] }), 422, 'unsafe_webhook_target');
      assert.match(problem.detail, reason, url);
      assert.equal(problem.errors[0].field, 'url');
    }
    await subscribe({ url: 'https://v6.partner.test/x', events: ['member.created'] }).expect(201);
    // a port past 65535 is a malformed URL: the sender's 400, not an unsafe target
    const malformed = expectProblem(
      await subscribe({ url: 'https://hooks.partner.test:99999/x', events: ['member.created'] }),
      400,
      'validation_failed',
    );
    assert.equal(malformed.errors[0].field, 'url');
  });

  it('when a subscription is changed, paused and resumed, then each change is stored and audited', async () => {
    const created = await subscribe({ url: 'https://hooks.partner.test/a', events: ['member.created'] }).expect(201);
    const path = `/api/webhooks/${created.body.id}`;
    const changed = await t.http
      .patch(path)
      .set(bearer(token))
      .send({ url: 'https://v6.partner.test/b', events: ['event.created', 'course.deleted'], description: 'moved' })
      .expect(200);
    assert.equal(changed.body.url, 'https://v6.partner.test/b');
    assert.deepEqual(changed.body.events, ['event.created', 'course.deleted']);
    assert.equal(
      (await t.http.patch(path).set(bearer(token)).send({ status: 'paused' }).expect(200)).body.status,
      'paused',
    );
    assert.equal(
      (await t.http.patch(path).set(bearer(token)).send({ status: 'active' }).expect(200)).body.status,
      'active',
    );
    expectProblem(
      await t.http.patch(path).set(bearer(token)).send({ url: 'https://internal.partner.test/c' }),
      422,
      'unsafe_webhook_target',
    );
    expectProblem(await t.http.patch(path).set(bearer(token)).send({ status: 'disabled' }), 400, 'validation_failed');
    expectProblem(await t.http.patch(path).set(bearer(token)).send({}), 400, 'validation_failed');
    const audit = await AuditEntry.findAll({ where: { targetId: created.body.id }, order: [['id', 'ASC']] });
    assert.deepEqual(
      audit.map((a) => a.action),
      ['webhook.created', 'webhook.updated', 'webhook.paused', 'webhook.resumed'],
    );
    assert.ok(
      audit.every((a) => !JSON.stringify(a.after).includes('whsec_')),
      'secrets stay out of the audit trail',
    );
  });

  it('when the secret is rotated, then a new one is returned once', async () => {
    const created = await subscribe({ url: 'https://hooks.partner.test/r', events: ['member.created'] }).expect(201);
    const rotated = await t.http.post(`/api/webhooks/${created.body.id}/rotate-secret`).set(bearer(token)).expect(200);
    assert.match(rotated.body.secret, /^whsec_/);
    assert.notEqual(rotated.body.secret, created.body.secret);
    assert.equal(rotated.body.id, created.body.id);
  });

  it('when a subscription is deleted, then it is gone and a second delete is 404', async () => {
    const created = await subscribe({ url: 'https://hooks.partner.test/d', events: ['member.created'] }).expect(201);
    await t.http.delete(`/api/webhooks/${created.body.id}`).set(bearer(token)).expect(204);
    expectProblem(await t.http.get(`/api/webhooks/${created.body.id}`).set(bearer(token)), 404, 'not_found');
    expectProblem(await t.http.delete(`/api/webhooks/${created.body.id}`).set(bearer(token)), 404, 'not_found');
  });

  it('when another organization touches a subscription, then every operation is 404', async () => {
    const created = await subscribe({ url: 'https://hooks.partner.test/o', events: ['member.created'] }).expect(201);
    const other = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN' }));
    const path = `/api/webhooks/${created.body.id}`;
    expectProblem(await t.http.get(path).set(bearer(other)), 404, 'not_found');
    expectProblem(await t.http.patch(path).set(bearer(other)).send({ status: 'paused' }), 404, 'not_found');
    expectProblem(await t.http.delete(path).set(bearer(other)), 404, 'not_found');
    expectProblem(await t.http.post(`${path}/rotate-secret`).set(bearer(other)), 404, 'not_found');
    expectProblem(await t.http.get(`${path}/deliveries`).set(bearer(other)), 404, 'not_found');
    expectProblem(
      await t.http.post(`${path}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`).set(bearer(other)),
      404,
      'not_found',
    );
    assert.equal((await t.http.get('/api/webhooks').set(bearer(other)).expect(200)).body.pagination.totalItems, 0);
  });

  it('when staff without the webhook permission manage subscriptions, then 403; an API key may', async () => {
    const staff = await buildUser({ role: 'ROLE_CLIENT_USER', organizationId });
    expectProblem(await t.http.get('/api/webhooks').set(bearer(await tokenFor(t, staff))), 403, 'forbidden');
    const { secret } = await buildApiKey(organizationId);
    await t.http.get('/api/webhooks').set(bearer(secret)).expect(200);
    const kinds = await t.http.get('/api/webhooks/event-types').set(bearer(secret)).expect(200);
    assert.deepEqual(
      kinds.body.data.map((k: { type: string }) => k.type),
      [
        'member.created',
        'member.updated',
        'member.deleted',
        'event.created',
        'event.updated',
        'event.deleted',
        'course.created',
        'course.updated',
        'course.deleted',
        'connection.activated',
        'connection.deactivated',
        'resource.published',
        'resource.updated',
        'resource.deleted',
      ],
    );
  });

  it('when a subscription POST repeats its Idempotency-Key, then the first answer (with the same secret) comes back, and another body is 422', async () => {
    const body = { url: 'https://hooks.partner.test/i', events: ['course.created'] };
    const first = await subscribe(body).set('Idempotency-Key', 'subscribe-1').expect(201);
    const again = await subscribe(body).set('Idempotency-Key', 'subscribe-1').expect(201);
    assert.deepEqual(again.body, first.body);
    // the stored answer is sealed: the signing secret is not readable in the table
    const [stored] = await t.db.sequelize.query(
      "SELECT response_body::text AS body FROM idempotency_keys WHERE key = 'subscribe-1'",
    );
    const storedBody = (stored as Array<{ body: string }>)[0]!.body;
    assert.ok(!storedBody.includes(first.body.secret) && !storedBody.includes(first.body.url), storedBody);
    expectProblem(
      await subscribe({ ...body, events: ['course.updated'] }).set('Idempotency-Key', 'subscribe-1'),
      422,
      'idempotency_key_reused',
    );
    const listed = await t.http.get('/api/webhooks?itemsPerPage=100').set(bearer(token)).expect(200);
    assert.equal(listed.body.data.filter((w: { url: string }) => w.url === body.url).length, 1);
  });

  it('when a retry arrives while the first request with its key is still running, then 409 idempotency_in_progress', async () => {
    // the first request's claim, as it stands while that request is still being handled
    const user = (await t.http.get('/api/auth/me').set(bearer(token)).expect(200)).body;
    const body = { url: 'https://hooks.partner.test/slow', events: ['member.created'] };
    const fingerprint = sha256(`POST /api/webhooks\n${canonicalJson(body)}`);
    await t.container.services.idempotency.claim(`${organizationId}:user:${user.id}`, 'slow-1', fingerprint);
    const running = await subscribe(body).set('Idempotency-Key', 'slow-1');
    expectProblem(running, 409, 'idempotency_in_progress');
    assert.equal(running.headers['retry-after'], '1');
    // a minute later the claim counts as abandoned and the retry runs
    t.clock.advance(61_000);
    await subscribe(body).set('Idempotency-Key', 'slow-1').expect(201);
    // a day later the hourly purge removes the key, and it may be used afresh
    t.clock.advance(25 * 3600_000);
    assert.ok((await t.container.services.idempotency.purgeExpired()) >= 1);
    const [left] = await t.db.sequelize.query("SELECT count(*)::int AS n FROM idempotency_keys WHERE key = 'slow-1'");
    assert.equal((left as Array<{ n: number }>)[0]!.n, 0);
  });
});
