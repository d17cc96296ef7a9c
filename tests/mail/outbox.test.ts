import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, buildOrganization, buildUser } from '../factories/index.ts';
import { buildAdmin } from '../factories/mfa.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('Mail outbox without SMTP (GET /api/admin/outbox)', () => {
  let t: TestApp;
  let admin: Awaited<ReturnType<typeof buildAdmin>>;
  let orgId: string;

  before(async () => {
    t = await startTestApp({ env: { IMPERSONATION_NOTIFY_TARGET: 'false' } });
    admin = await buildAdmin(t);
    orgId = (await buildOrganization()).id;
  });
  after(() => t.close());

  it('when mail is sent without SMTP_URL, then administrators read it, full text included, in the outbox', async () => {
    await t.http.post('/api/admin/users').set(bearer(admin.token))
      .send({ firstName: 'Olive', lastName: 'Outbox', email: 'Olive@Outbox.test', role: 'ROLE_MEMBER', organizationId: orgId }).expect(201);
    const res = await t.http.get('/api/admin/outbox?to=olive@outbox.test').set(bearer(admin.token)).expect(200);
    assert.equal(res.body.data.length, 1);
    const [message] = res.body.data;
    assert.equal(message.template, 'welcome');
    assert.equal(message.status, 'outbox');
    assert.equal(message.attempts, 0);
    assert.match(message.text, /Choose your password with this single-use link/);
    assert.equal((await t.http.get('/api/admin/outbox?template=password_reset&to=olive@outbox.test').set(bearer(admin.token)).expect(200)).body.data.length, 0);
  });

  it('when impersonation notices are switched off, then impersonating sends nothing', async () => {
    const user = await buildUser({ organizationId: orgId, role: 'ROLE_MEMBER' });
    await t.http.post(`/api/admin/users/${user.id}/impersonate`).set(bearer(admin.mfaToken)).expect(201);
    const res = await t.http.get(`/api/admin/outbox?to=${user.email}`).set(bearer(admin.token)).expect(200);
    assert.equal(res.body.data.length, 0);
    await t.http.delete('/api/admin/impersonate').set(bearer(admin.mfaToken)).expect(200);
  });

  it('when someone other than a platform admin reads the outbox, then it is 403', async () => {
    const clientAdmin = await buildUser({ organizationId: orgId, role: 'ROLE_CLIENT_ADMIN' });
    const login = await t.http.post('/api/auth/login').send({ email: clientAdmin.email, password: 'correct horse battery staple' }).expect(200);
    expectProblem(await t.http.get('/api/admin/outbox').set(bearer(login.body.accessToken)), 403, 'forbidden');
  });
});
