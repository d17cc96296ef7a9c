// "Require SSO": an organization's users stop using passwords, except its break-glass admin.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuditEntry } from '../../src/modules/audit/audit-entry.model.ts';
import { SsoConnection } from '../../src/modules/sso/sso-connection.model.ts';
import { User } from '../../src/modules/users/user.model.ts';
import { bearer, buildOrganization, buildUser, PASSWORD, tokenFor } from '../factories/index.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('require SSO', () => {
  let t: TestApp;
  let organizationId: string;
  let adminToken: string;
  let breakGlassId: string;
  const login = (email: string) => t.http.post('/api/auth/login').send({ email, password: PASSWORD });

  before(async () => {
    t = await startTestApp();
    organizationId = (await buildOrganization()).id;
    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId, email: 'glass@policy.test' });
    breakGlassId = admin.id;
    adminToken = await tokenFor(t, admin);
  });
  after(() => t.close());

  it('when no connection is active, then SSO cannot be required (nobody could sign in)', async () => {
    const policy = await t.http.get('/api/sso/policy').set(bearer(adminToken)).expect(200);
    assert.deepEqual(policy.body, { requireSso: false, breakGlassUserId: null, updatedAt: null });
    expectProblem(
      await t.http.put('/api/sso/policy').set(bearer(adminToken)).send({ requireSso: true }),
      400,
      'invalid_connection',
    );
  });

  it('when SSO is required, then staff passwords are refused and only the break-glass admin keeps one', async () => {
    await SsoConnection.create({
      organizationId,
      name: 'Okta',
      protocol: 'identity_service',
      settings: { connection: 'conn_policy' },
      status: 'active',
      domains: ['policy.test'],
    });
    const staff = await buildUser({ role: 'ROLE_CLIENT_USER', organizationId, email: 'staff@policy.test' });
    const outsider = await buildUser({ role: 'ROLE_CLIENT_USER', email: 'outsider@other.test' });
    expectProblem(
      await t.http
        .put('/api/sso/policy')
        .set(bearer(adminToken))
        .send({ requireSso: true, breakGlassUserId: staff.id }),
      400,
      'validation_failed',
    );
    const set = await t.http
      .put('/api/sso/policy')
      .set(bearer(adminToken))
      .send({ requireSso: true, breakGlassUserId: breakGlassId })
      .expect(200);
    assert.equal(set.body.requireSso, true);
    const refused = expectProblem(await login(staff.email), 403, 'sso_required');
    assert.match(refused.detail, /\/auth\/sso/);
    await login('glass@policy.test').expect(200);
    await login(outsider.email).expect(200);
    assert.equal(await AuditEntry.count({ where: { action: 'sso.policy_changed', organizationId } }), 1);

    // the last active connection is the only way in while the policy holds: not disabled, not deleted
    const only = (await SsoConnection.findOne({ where: { organizationId, status: 'active' } }))!;
    const path = `/api/sso/connections/${only.id}`;
    const disabled = expectProblem(
      await t.http.post(`${path}/disable`).set(bearer(adminToken)),
      400,
      'invalid_connection',
    );
    assert.match(disabled.detail, /Turn Require SSO off first/);
    expectProblem(await t.http.delete(path).set(bearer(adminToken)), 400, 'invalid_connection');
    await only.reload();
    assert.equal(only.status, 'active');

    // the exemption is the client admin's: demoted, the break-glass user is refused as the others are
    await User.update({ role: 'ROLE_CLIENT_USER' }, { where: { id: breakGlassId } });
    expectProblem(await login('glass@policy.test'), 403, 'sso_required');
    await User.update({ role: 'ROLE_CLIENT_ADMIN' }, { where: { id: breakGlassId } });
    await login('glass@policy.test').expect(200);

    await t.http.put('/api/sso/policy').set(bearer(adminToken)).send({ requireSso: false }).expect(200);
    await login(staff.email).expect(200);
    await t.http.post(`${path}/disable`).set(bearer(adminToken)).expect(200); // with the policy off
  });

  it("when a member or another organization's admin asks, then the policy is not theirs to read", async () => {
    const member = await tokenFor(t, await buildUser({ role: 'ROLE_MEMBER', organizationId }));
    expectProblem(await t.http.get('/api/sso/policy').set(bearer(member)), 403, 'forbidden');
    const stranger = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN' }));
    const theirs = await t.http.get('/api/sso/policy').set(bearer(stranger)).expect(200);
    assert.equal(theirs.body.requireSso, false);
  });
});
