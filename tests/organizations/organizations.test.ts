import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuditEntry } from '../../src/modules/audit/audit-entry.model.ts';
import { bearer, buildApiKey, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { buildMember } from '../factories/records.ts';
import { buildAdmin } from '../factories/mfa.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('Admin organizations: tenants as first-class records', () => {
  let t: TestApp;
  let token: string;
  let adminId: string;

  before(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_STANDARD: '1000', RATE_LIMIT_ENTERPRISE: '25000' } });
    const built = await buildAdmin(t);
    token = built.token;
    adminId = built.admin.id;
  });
  after(() => t.close());

  const create = (body: Record<string, unknown>) =>
    t.http.post('/api/admin/organizations').set(bearer(token)).send(body);
  const update = (id: string, body: Record<string, unknown>) =>
    t.http.put(`/api/admin/organizations/${id}`).set(bearer(token)).send(body);

  it('when a platform admin creates an organization, then it has defaults, zero counts, a Location and an audit entry', async () => {
    const res = await create({ name: 'Royal Society of Tests', slug: 'royal-tests' }).expect(201);
    assert.equal(res.headers.location, `/api/admin/organizations/${res.body.id}`);
    assert.equal(res.body.plan, 'standard');
    assert.equal(res.body.environment, 'production');
    assert.equal(res.body.status, 'active');
    assert.equal(res.body.suspendedAt, null);
    assert.deepEqual(res.body.counts, { users: 0, members: 0, apiKeys: 0 });
    const audit = await AuditEntry.findOne({ where: { action: 'organization.created', targetId: res.body.id } });
    assert.equal(audit?.actorId, adminId);
    assert.equal((audit!.after as Record<string, unknown>).slug, 'royal-tests');
  });

  it('when a slug is already used, then the answer is 409 naming the field', async () => {
    await create({ name: 'First', slug: 'taken-slug' }).expect(201);
    const res = await create({ name: 'Second', slug: 'taken-slug' });
    const problem = expectProblem(res, 409, 'already_exists');
    assert.deepEqual(problem.errors, [{ field: 'slug', message: 'is already in use' }]);
  });

  it('when the slug or plan is malformed, then the contract refuses it with 400', async () => {
    expectProblem(await create({ name: 'Bad', slug: 'Not A Slug' }), 400, 'validation_failed');
    expectProblem(await create({ name: 'Bad', slug: 'bad-plan', plan: 'gold' }), 400, 'validation_failed');
    expectProblem(await create({ name: '   ', slug: 'blank-name' }), 400, 'validation_failed');
  });

  it('when an organization has users, members and keys, then its counts say so (deleted users and revoked keys excluded)', async () => {
    const org = await buildOrganization();
    await buildUser({ organizationId: org.id, role: 'ROLE_CLIENT_USER' });
    const gone = await buildUser({ organizationId: org.id, role: 'ROLE_MEMBER' });
    await gone.destroy(); // paranoid: a soft delete
    await buildMember(org.id);
    await buildMember(org.id);
    await buildApiKey(org.id);
    const { apiKey } = await buildApiKey(org.id);
    await apiKey.update({ revokedAt: new Date() });
    const res = await t.http.get(`/api/admin/organizations/${org.id}`).set(bearer(token)).expect(200);
    assert.deepEqual(res.body.counts, { users: 1, members: 2, apiKeys: 1 });
  });

  it('when the list is filtered by name, status and plan, then only matching organizations come back, newest first', async () => {
    const a = (await create({ name: 'Filter Alpha Guild', slug: 'filter-alpha', plan: 'enterprise' }).expect(201)).body;
    const b = (
      await create({
        name: 'Filter Beta Guild',
        slug: 'filter-beta',
        plan: 'professional',
        status: 'suspended',
      }).expect(201)
    ).body;
    const byName = await t.http.get('/api/admin/organizations?q=filter%20').set(bearer(token)).expect(200);
    assert.deepEqual(
      byName.body.data.map((o: { id: string }) => o.id),
      [b.id, a.id],
    );
    // punctuation encodeURIComponent leaves unencoded is a match on text, not a refusal
    const quoted = await t.http
      .get(`/api/admin/organizations?q=${encodeURIComponent("filter's (beta)!")}`)
      .set(bearer(token))
      .expect(200);
    assert.deepEqual(quoted.body.data, []);
    const suspended = await t.http
      .get('/api/admin/organizations?q=filter&status=suspended')
      .set(bearer(token))
      .expect(200);
    assert.deepEqual(
      suspended.body.data.map((o: { id: string }) => o.id),
      [b.id],
    );
    assert.ok(suspended.body.data[0].suspendedAt);
    const plans = await t.http
      .get('/api/admin/organizations?q=filter&plan=enterprise,standard')
      .set(bearer(token))
      .expect(200);
    assert.deepEqual(
      plans.body.data.map((o: { id: string }) => o.id),
      [a.id],
    );
    assert.equal(plans.body.pagination.totalItems, 1);
    expectProblem(await t.http.get('/api/admin/organizations?status=closed').set(bearer(token)), 400, 'invalid_filter');
  });

  it('when the plan changes, then the next request of that organization gets the new rate limit', async () => {
    const org = await buildOrganization({ plan: 'standard' });
    const { secret } = await buildApiKey(org.id);
    const before = await t.http.get('/api/members').set(bearer(secret)).expect(200);
    assert.equal(before.headers['x-ratelimit-limit'], '1000');
    await update(org.id, { plan: 'enterprise' }).expect(200);
    const after = await t.http.get('/api/members').set(bearer(secret)).expect(200);
    assert.equal(after.headers['x-ratelimit-limit'], '25000');
  });

  it('when an organization is suspended, then its users and keys are refused at once, and reactivating lets them back in', async () => {
    const org = await buildOrganization();
    const user = await buildUser({ organizationId: org.id, role: 'ROLE_CLIENT_ADMIN' });
    const userToken = await tokenFor(t, user);
    const { secret } = await buildApiKey(org.id);
    await t.http.get('/api/members').set(bearer(userToken)).expect(200);
    await t.http.get('/api/members').set(bearer(secret)).expect(200);

    const res = await update(org.id, { status: 'suspended' }).expect(200);
    assert.equal(res.body.status, 'suspended');
    assert.ok(res.body.suspendedAt);
    expectProblem(await t.http.get('/api/members').set(bearer(userToken)), 403, 'organization_suspended');
    expectProblem(await t.http.get('/api/members').set(bearer(secret)), 403, 'organization_suspended');
    expectProblem(
      await t.http.post('/api/auth/login').send({ email: user.email, password: 'correct horse battery staple' }),
      403,
      'organization_suspended',
    );
    const audit = await AuditEntry.findOne({ where: { action: 'organization.updated', targetId: org.id } });
    assert.deepEqual(
      [(audit!.before as { status: string }).status, (audit!.after as { status: string }).status],
      ['active', 'suspended'],
    );

    const back = await update(org.id, { status: 'active' }).expect(200);
    assert.equal(back.body.suspendedAt, null);
    await t.http.get('/api/members').set(bearer(userToken)).expect(200);
    await t.http.get('/api/members').set(bearer(secret)).expect(200);
  });

  it('when a platform admin acts in an organization, then they cannot suspend it themselves', async () => {
    const org = await buildOrganization();
    const res = await t.http
      .put(`/api/admin/organizations/${org.id}`)
      .set(bearer(token))
      .set('Guildhall-Organization', org.id)
      .send({ status: 'suspended' });
    // and are told how: the same request without the header naming it
    assert.match(expectProblem(res, 403, 'cannot_modify_self').detail, /without a Guildhall-Organization header/);
    await t.http.put(`/api/admin/organizations/${org.id}`).set(bearer(token)).send({ status: 'suspended' }).expect(200);
  });

  it('when nothing changes, then no audit entry is written; an unknown id is 404', async () => {
    const org = await buildOrganization({ name: 'Same Name' });
    await update(org.id, { name: 'Same Name' }).expect(200);
    assert.equal(await AuditEntry.count({ where: { action: 'organization.updated', targetId: org.id } }), 0);
    expectProblem(
      await t.http.get('/api/admin/organizations/00000000-0000-4000-8000-000000000000').set(bearer(token)),
      404,
      'not_found',
    );
    expectProblem(await update('00000000-0000-4000-8000-000000000000', { name: 'x' }), 404, 'not_found');
  });

  it('when a client admin or an API key asks, then organizations are forbidden', async () => {
    const org = await buildOrganization();
    const clientAdmin = await buildUser({ organizationId: org.id, role: 'ROLE_CLIENT_ADMIN' });
    expectProblem(
      await t.http.get('/api/admin/organizations').set(bearer(await tokenFor(t, clientAdmin))),
      403,
      'forbidden',
    );
    const { secret } = await buildApiKey(org.id);
    expectProblem(
      await t.http.post('/api/admin/organizations').set(bearer(secret)).send({ name: 'Mine', slug: 'mine' }),
      403,
      'forbidden',
    );
    expectProblem(await t.http.get('/api/admin/organizations'), 401, 'unauthenticated');
  });
});
