import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuditEntry } from '../../src/modules/audit/audit-entry.model.ts';
import { bearer, buildApiKey, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('API keys', () => {
  let t: TestApp;
  let adminToken: string;
  let organizationId: string;

  before(async () => {
    t = await startTestApp();
    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    organizationId = admin.organizationId!;
    adminToken = await tokenFor(t, admin);
  });
  after(() => t.close());

  it('when a client admin creates a key, then the secret is shown once and only a hash is stored', async () => {
    const created = await t.http.post('/api/api-keys').set(bearer(adminToken)).send({ name: 'CRM sync' }).expect(201);
    assert.match(created.body.key, /^gh_live_[A-Za-z0-9_-]{32}$/);
    assert.equal(created.body.prefix, created.body.key.slice(0, 12));
    assert.equal(created.body.revokedAt, null);

    const list = await t.http.get('/api/api-keys').set(bearer(adminToken)).expect(200);
    const listed = list.body.data.find((k: { id: string }) => k.id === created.body.id);
    assert.ok(listed);
    assert.equal(listed.key, undefined, 'the secret is never listed');
    const [row] = (await t.db.sequelize.query('SELECT key_hash FROM api_keys WHERE id = $1', {
      bind: [created.body.id],
      plain: false,
      raw: true,
    })) as unknown as [Array<{ key_hash: string }>];
    assert.notEqual(row[0]!.key_hash, created.body.key);
    assert.match(row[0]!.key_hash, /^[0-9a-f]{64}$/);
  });

  it("when a key stored under the sandbox's prefix is used on the live environment, then 401 says where it belongs", async () => {
    // a demo key set by hand could be stored so; keys this deployment makes have its own prefix
    const { secret } = await buildApiKey(organizationId, 'gh_test_');
    const problem = expectProblem(await t.http.get('/api/members').set(bearer(secret)), 401, 'unauthenticated');
    assert.match(problem.detail, /belongs to the sandbox environment; this deployment serves the live one/);
  });

  it('when a key is used, then it authenticates for its organization and lastUsedAt is recorded', async () => {
    const created = await t.http.post('/api/api-keys').set(bearer(adminToken)).send({ name: 'used' }).expect(201);
    // An API key may not manage keys, but it authenticates: 403 (not 401) proves it was recognised.
    const res = await t.http.get('/api/api-keys').set(bearer(created.body.key));
    expectProblem(res, 403, 'forbidden');
    let lastUsedAt: string | null = null;
    for (let i = 0; i < 20 && !lastUsedAt; i++) {
      const list = await t.http.get('/api/api-keys').set(bearer(adminToken)).expect(200);
      lastUsedAt = list.body.data.find((k: { id: string }) => k.id === created.body.id).lastUsedAt;
      if (!lastUsedAt) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(lastUsedAt, 'lastUsedAt is set after use');
  });

  it('when a key is revoked, then it is refused with 401 and stays listed as revoked', async () => {
    const created = await t.http.post('/api/api-keys').set(bearer(adminToken)).send({ name: 'to revoke' }).expect(201);
    await t.http.delete(`/api/api-keys/${created.body.id}`).set(bearer(adminToken)).expect(204);
    expectProblem(await t.http.get('/api/members').set(bearer(created.body.key)), 401, 'unauthenticated');
    const list = await t.http.get('/api/api-keys').set(bearer(adminToken)).expect(200);
    assert.ok(list.body.data.find((k: { id: string }) => k.id === created.body.id).revokedAt);
    // revoking again is a no-op
    await t.http.delete(`/api/api-keys/${created.body.id}`).set(bearer(adminToken)).expect(204);
    const audit = await AuditEntry.findAll({ where: { targetId: created.body.id }, order: [['id', 'ASC']] });
    assert.deepEqual(
      audit.map((a) => a.action),
      ['api_key.created', 'api_key.revoked'],
    );
  });

  it('when another organization asks for or revokes a key, then it is 404 and isolation holds', async () => {
    const other = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    const otherToken = await tokenFor(t, other);
    const mine = await t.http.post('/api/api-keys').set(bearer(adminToken)).send({ name: 'mine' }).expect(201);
    expectProblem(await t.http.delete(`/api/api-keys/${mine.body.id}`).set(bearer(otherToken)), 404, 'not_found');
    const theirs = await t.http.get('/api/api-keys').set(bearer(otherToken)).expect(200);
    assert.equal(theirs.body.data.length, 0);
    assert.equal(theirs.body.pagination.totalItems, 0);
  });

  it('when a client user (not admin) manages keys, then it is 403', async () => {
    const staff = await buildUser({ role: 'ROLE_CLIENT_USER', organizationId });
    expectProblem(await t.http.get('/api/api-keys').set(bearer(await tokenFor(t, staff))), 403, 'forbidden');
  });

  it('when the list is paged, then the envelope and Link header describe the pages', async () => {
    const org = await buildOrganization();
    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: org.id });
    for (let i = 0; i < 5; i++) await buildApiKey(org.id);
    const token = await tokenFor(t, admin);
    const res = await t.http.get('/api/api-keys?page=2&itemsPerPage=2').set(bearer(token)).expect(200);
    assert.deepEqual(res.body.pagination, { page: 2, itemsPerPage: 2, totalItems: 5, totalPages: 3 });
    assert.equal(res.body.data.length, 2);
    const link = res.headers.link as string;
    assert.match(link, /<\/api\/api-keys\?page=1&itemsPerPage=2>; rel="first"/);
    assert.match(link, /page=1&itemsPerPage=2>; rel="prev"/);
    assert.match(link, /page=3&itemsPerPage=2>; rel="next"/);
    assert.match(link, /page=3&itemsPerPage=2>; rel="last"/);
  });

  it('when itemsPerPage exceeds 100 or the name is missing, then it is a 400 naming the field', async () => {
    const tooBig = expectProblem(
      await t.http.get('/api/api-keys?itemsPerPage=101').set(bearer(adminToken)),
      400,
      'validation_failed',
    );
    assert.equal(tooBig.errors[0].field, 'itemsPerPage');
    const missing = expectProblem(
      await t.http.post('/api/api-keys').set(bearer(adminToken)).send({}),
      400,
      'validation_failed',
    );
    assert.ok(missing.errors.some((e: { field: string }) => e.field === 'name'));
    const extra = expectProblem(
      await t.http.post('/api/api-keys').set(bearer(adminToken)).send({ name: 'x', admin: true }),
      400,
      'validation_failed',
    );
    assert.match(extra.detail, /field/);
  });
});
