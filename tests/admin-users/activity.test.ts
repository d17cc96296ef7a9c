import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ImpersonationRequest } from '../../src/modules/impersonation/impersonation-request.model.ts';
import { bearer, buildOrganization } from '../factories/index.ts';
import { buildAdmin } from '../factories/mfa.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('User activity log (GET /api/admin/users/{id}/activity)', () => {
  let t: TestApp;
  let admin: Awaited<ReturnType<typeof buildAdmin>>;
  let userId: string;
  let sessionId: string;

  before(async () => {
    t = await startTestApp();
    admin = await buildAdmin(t);
    const orgId = (await buildOrganization()).id;
    const created = await t.http
      .post('/api/admin/users')
      .set(bearer(admin.token))
      .send({
        firstName: 'Act',
        lastName: 'Ive',
        email: 'active@activity.test',
        role: 'ROLE_CLIENT_ADMIN',
        organizationId: orgId,
        password: 'a long initial password',
      })
      .expect(201);
    userId = created.body.id;
    await t.http
      .put(`/api/admin/users/${userId}`)
      .set(bearer(admin.token))
      .send({ lastName: 'Ivity', status: 'suspended' })
      .expect(200);
    await t.http.put(`/api/admin/users/${userId}`).set(bearer(admin.token)).send({ status: 'active' }).expect(200);
    const started = await t.http
      .post(`/api/admin/users/${userId}/impersonate`)
      .set(bearer(admin.mfaToken))
      .send({ mode: 'act_as_user' })
      .expect(201);
    sessionId = started.body.session.id;
    await t.http
      .post('/api/api-keys')
      .set(bearer(started.body.accessToken))
      .send({ name: 'while impersonated' })
      .expect(201);
    await t.http.delete('/api/admin/impersonate').set(bearer(started.body.accessToken)).expect(200);
    for (let i = 0; i < 50 && (await ImpersonationRequest.count({ where: { sessionId } })) < 2; i++)
      await new Promise((r) => setTimeout(r, 20));
  });
  after(() => t.close());

  const activity = (query = '') => t.http.get(`/api/admin/users/${userId}/activity${query}`).set(bearer(admin.token));

  it('when read, then changes to the user, its impersonation and what was done in it are listed newest first', async () => {
    const res = await activity().expect(200);
    const actions = res.body.data.map((e: { action: string }) => e.action);
    for (const expected of [
      'user.created',
      'user.updated',
      'user.status_changed',
      'impersonation.started',
      'api_key.created',
      'impersonation.request',
      'impersonation.ended',
    ]) {
      assert.ok(actions.includes(expected), `${expected} in ${actions.join(', ')}`);
    }
    const times = res.body.data.map((e: { occurredAt: string }) => e.occurredAt);
    assert.deepEqual(times, [...times].sort().reverse());
    const onBehalf = res.body.data.find((e: { action: string }) => e.action === 'api_key.created');
    assert.deepEqual(onBehalf.actor, { type: 'user', id: userId });
    assert.equal(onBehalf.impersonatorId, admin.admin.id);
    const request = res.body.data.find(
      (e: { action: string; after: { method: string } }) =>
        e.action === 'impersonation.request' && e.after.method === 'POST',
    );
    assert.deepEqual(request.after, { sessionId, method: 'POST', path: '/api/api-keys', statusCode: 201 });
    assert.equal(request.impersonatorId, admin.admin.id);
  });

  it('when filtered by action, then only that action is listed, with before and after', async () => {
    const res = await activity('?action=user.status_changed').expect(200);
    assert.deepEqual(
      res.body.data.map((e: { after: unknown }) => e.after),
      [{ status: 'active' }, { status: 'suspended' }],
    );
    assert.equal(res.body.data[0].actor.id, admin.admin.id);
  });

  it('when filtered by date or paged, then the range and page apply', async () => {
    const all = await activity().expect(200);
    assert.equal((await activity('?occurredAt[before]=2000-01-01').expect(200)).body.data.length, 0);
    assert.equal(
      (await activity('?occurredAt[after]=2000-01-01').expect(200)).body.pagination.totalItems,
      all.body.pagination.totalItems,
    );
    const page = await activity('?itemsPerPage=2&page=2').expect(200);
    assert.deepEqual(
      page.body.data.map((e: { id: string }) => e.id),
      all.body.data.slice(2, 4).map((e: { id: string }) => e.id),
    );
  });

  it("when the admin's own activity is read, then the impersonation it made is there too", async () => {
    const res = await t.http
      .get(`/api/admin/users/${admin.admin.id}/activity?action=impersonation.started`)
      .set(bearer(admin.token))
      .expect(200);
    assert.equal(res.body.data.length, 1);
    expectProblem(
      await t.http.get('/api/admin/users/00000000-0000-4000-8000-000000000000/activity').set(bearer(admin.token)),
      404,
      'not_found',
    );
  });
});
