// A session is allowed by the start rules (an active platform admin, an active target of lower rank in
// an active organization); when either party stops meeting them, the session ends for good.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuditEntry } from '../../src/modules/audit/audit-entry.model.ts';
import { ImpersonationSession } from '../../src/modules/impersonation/impersonation-session.model.ts';
import { User } from '../../src/modules/users/user.model.ts';
import { bearer, buildOrganization, buildUser } from '../factories/index.ts';
import { buildAdmin, mfaTokenFor } from '../factories/mfa.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('Impersonation revocation', () => {
  let t: TestApp;
  let orgId: string;
  let other: Awaited<ReturnType<typeof buildAdmin>>; // the platform admin who changes the users

  before(async () => {
    t = await startTestApp();
    orgId = (await buildOrganization()).id;
    other = await buildAdmin(t);
  });
  after(() => t.close());

  const start = (token: string, userId: string, body: Record<string, unknown> = {}) =>
    t.http.post(`/api/admin/users/${userId}/impersonate`).set(bearer(token)).send(body);
  const end = (token: string) => t.http.delete('/api/admin/impersonate').set(bearer(token));
  const editUser = (id: string, body: Record<string, unknown>) =>
    t.http.put(`/api/admin/users/${id}`).set(bearer(other.mfaToken)).send(body).expect(200);
  const me = (token: string) => t.http.get('/api/auth/me').set(bearer(token));
  const sessionOf = async (id: string) => {
    const res = await t.http.get(`/api/admin/impersonations?adminId=${id}`).set(bearer(other.mfaToken)).expect(200);
    return res.body.data[0];
  };
  const revokedBecause = async (sessionId: string) => {
    const audit = await AuditEntry.findOne({ where: { action: 'impersonation.ended', after: { sessionId } } });
    return String(audit?.after?.revokedBecause);
  };

  async function impersonating(mode: 'read_only' | 'act_as_user' = 'act_as_user') {
    const { admin, mfaToken } = await buildAdmin(t);
    const target = await buildUser({ organizationId: orgId, role: 'ROLE_MEMBER' });
    const res = await start(mfaToken, target.id, { mode }).expect(201);
    await me(res.body.accessToken).expect(200);
    return { admin, mfaToken, target, token: res.body.accessToken as string, sessionId: res.body.session.id as string };
  }

  it('when the target is promoted to platform admin, then the session ends and its token cannot reach admin operations', async () => {
    const { admin, mfaToken, target, token, sessionId } = await impersonating();
    await editUser(target.id, { role: 'ROLE_PLATFORM_ADMIN', organizationId: null, confirmPrivilegeChange: true });
    expectProblem(await t.http.get('/api/admin/users').set(bearer(token)), 401, 'unauthenticated');
    const created = await t.http
      .post('/api/admin/users')
      .set(bearer(token))
      .send({
        firstName: 'Escalated',
        lastName: 'Admin',
        email: `escalated-${sessionId}@example.test`,
        role: 'ROLE_PLATFORM_ADMIN',
        organizationId: null,
        password: 'correct horse battery staple',
      });
    expectProblem(created, 401, 'unauthenticated');
    const session = await sessionOf(admin.id);
    assert.equal(session.status, 'ended');
    assert.equal(session.endReason, 'revoked', 'the admin did not exit it');
    assert.match(await revokedBecause(sessionId), /ROLE_PLATFORM_ADMIN/);
    const next = await buildUser({ organizationId: orgId, role: 'ROLE_MEMBER' });
    await start(mfaToken, next.id).expect(201); // nothing left open
    await end(mfaToken).expect(200);
  });

  it('when the target changes behind the services (no model hooks), then the next request with the token ends the session', async () => {
    const { admin, target, token, sessionId } = await impersonating();
    await User.update(
      { role: 'ROLE_PLATFORM_ADMIN', organizationId: null },
      { where: { id: target.id }, hooks: false },
    );
    t.container.services.auth.forgetUser(target.id);
    const refused = await t.http.get('/api/admin/users').set(bearer(token));
    expectProblem(refused, 401, 'unauthenticated');
    assert.match(refused.body.detail, /ended/);
    assert.equal((await sessionOf(admin.id)).status, 'ended');
    assert.match(await revokedBecause(sessionId), /ROLE_PLATFORM_ADMIN/);
  });

  for (const [change, body] of [
    ['demoted', { role: 'ROLE_CLIENT_ADMIN', organizationId: 'org' }],
    ['deactivated', { status: 'inactive' }],
  ] as const) {
    it(`when the admin is ${change}, then the session ends and the token stays dead after they are restored`, async () => {
      const { admin, token, sessionId } = await impersonating();
      await editUser(admin.id, 'organizationId' in body ? { ...body, organizationId: orgId } : body);
      assert.equal((await sessionOf(admin.id)).status, 'ended');
      assert.match(await revokedBecause(sessionId), /administrator/);
      expectProblem(await me(token), 401, 'unauthenticated');
      await editUser(admin.id, {
        role: 'ROLE_PLATFORM_ADMIN',
        organizationId: null,
        status: 'active',
        confirmPrivilegeChange: true,
      });
      expectProblem(await me(token), 401, 'unauthenticated');
      const fresh = await mfaTokenFor(t, admin);
      await start(fresh, (await buildUser({ organizationId: orgId })).id).expect(201);
      await end(fresh).expect(200);
    });
  }

  it('when the admin is deleted, then the session ends', async () => {
    const { admin, sessionId } = await impersonating();
    await t.http.delete(`/api/admin/users/${admin.id}`).set(bearer(other.mfaToken)).expect(200);
    assert.ok((await ImpersonationSession.findByPk(sessionId))?.endedAt);
  });

  it('when the target is soft-deleted, then the session ends and a new one may start', async () => {
    const { admin, mfaToken, target, token, sessionId } = await impersonating();
    await t.http.delete(`/api/admin/users/${target.id}`).set(bearer(other.mfaToken)).expect(200);
    assert.equal((await sessionOf(admin.id)).status, 'ended');
    assert.match(await revokedBecause(sessionId), /deleted/);
    expectProblem(await me(token), 401, 'unauthenticated');
    await start(mfaToken, (await buildUser({ organizationId: orgId })).id).expect(201);
    await end(mfaToken).expect(200);
  });

  it('when the target is deactivated or purged, then the session ends', async () => {
    const deactivated = await impersonating();
    await editUser(deactivated.target.id, { status: 'suspended' });
    assert.equal((await sessionOf(deactivated.admin.id)).status, 'ended');

    const purged = await impersonating();
    await User.update({ deletedAt: new Date() }, { where: { id: purged.target.id }, hooks: false }); // soft-deleted before
    await t.http
      .delete(`/api/admin/users/${purged.target.id}/permanent?confirm=${purged.target.email}`)
      .set(bearer(other.mfaToken))
      .expect(204);
    assert.equal((await sessionOf(purged.admin.id)).status, 'ended');
    assert.match(await revokedBecause(purged.sessionId), /deleted/);
  });

  it('when the target was deactivated behind the services, then the admin can still start another session', async () => {
    const { admin, mfaToken, target } = await impersonating();
    await User.update({ status: 'inactive' }, { where: { id: target.id }, hooks: false });
    await start(mfaToken, (await buildUser({ organizationId: orgId })).id).expect(201);
    await end(mfaToken).expect(200);
    const [, first] = (await t.http.get(`/api/admin/impersonations?adminId=${admin.id}`).set(bearer(mfaToken))).body
      .data;
    assert.equal(first.status, 'ended');
    assert.equal(await t.container.services.impersonation.closeExpired(), 0);
  });

  it('when a read-only or acting token asks to impersonate someone else, then it is 409 already_impersonating', async () => {
    for (const mode of ['read_only', 'act_as_user'] as const) {
      const { mfaToken, token } = await impersonating(mode);
      const otherTarget = await buildUser({ organizationId: orgId });
      expectProblem(await start(token, otherTarget.id), 409, 'already_impersonating');
      await end(mfaToken).expect(200);
    }
  });

  it("when the target's organization is suspended, then a start is 422 and an open session ends", async () => {
    const org = await buildOrganization();
    const { mfaToken } = await buildAdmin(t);
    const target = await buildUser({ organizationId: org.id, role: 'ROLE_MEMBER' });
    const res = await start(mfaToken, target.id).expect(201);
    await t.http
      .put(`/api/admin/organizations/${org.id}`)
      .set(bearer(other.mfaToken))
      .send({ status: 'suspended' })
      .expect(200);
    assert.ok((await ImpersonationSession.findByPk(res.body.session.id))?.endedAt);
    expectProblem(await end(mfaToken), 409, 'not_impersonating');
    const refused = await start(mfaToken, target.id);
    expectProblem(refused, 422, 'unprocessable');
    assert.match(refused.body.detail, /organization is suspended/);
  });
});
