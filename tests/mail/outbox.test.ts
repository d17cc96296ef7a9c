import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OutboxMessage } from '../../src/modules/mail/outbox-message.model.ts';
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

  it('when mail is sent without SMTP_URL, then administrators read it in the outbox with its secrets redacted', async () => {
    await t.http
      .post('/api/admin/users')
      .set(bearer(admin.token))
      .send({
        firstName: 'Olive',
        lastName: 'Outbox',
        email: 'Olive@Outbox.test',
        role: 'ROLE_MEMBER',
        organizationId: orgId,
      })
      .expect(201);
    const res = await t.http.get('/api/admin/outbox?to=olive@outbox.test').set(bearer(admin.token)).expect(200);
    assert.equal(res.body.data.length, 1);
    const [message] = res.body.data;
    assert.equal(message.template, 'welcome');
    assert.equal(message.status, 'outbox');
    assert.equal(message.attempts, 0);
    assert.match(
      message.text,
      /Choose your password with this single-use link \(valid until [^)]+\):\n\n\[redacted\]\n/,
    );
    assert.doesNotMatch(message.text, /#token=/);
    assert.equal(
      (
        await t.http
          .get('/api/admin/outbox?template=password_reset&to=olive@outbox.test')
          .set(bearer(admin.token))
          .expect(200)
      ).body.data.length,
      0,
    );
  });

  it('when a user is created with a generated password, then the outbox shows the e-mail without the password', async () => {
    const res = await t.http
      .post('/api/admin/users')
      .set(bearer(admin.token))
      .send({
        firstName: 'Gene',
        lastName: 'Rated',
        email: 'gene@outbox.test',
        role: 'ROLE_MEMBER',
        organizationId: orgId,
        generatePassword: true,
      })
      .expect(201);
    const stored = await OutboxMessage.findOne({ where: { userId: res.body.id } });
    const password = /temporary password is: (\S+)/.exec(stored!.textBody!)?.[1];
    assert.ok(password, 'the e-mail itself carries the password, for the recipient');
    const [message] = (await t.http.get('/api/admin/outbox?to=gene@outbox.test').set(bearer(admin.token)).expect(200))
      .body.data;
    assert.match(message.text, /Your temporary password is: \[redacted\]/);
    assert.ok(!message.text.includes(password));
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
    const login = await t.http
      .post('/api/auth/login')
      .send({ email: clientAdmin.email, password: 'correct horse battery staple' })
      .expect(200);
    expectProblem(await t.http.get('/api/admin/outbox').set(bearer(login.body.accessToken)), 403, 'forbidden');
  });
});
