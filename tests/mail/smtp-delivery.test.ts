import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OutboxMessage } from '../../src/modules/mail/outbox-message.model.ts';
import { bearer, buildOrganization, buildUser } from '../factories/index.ts';
import { buildAdmin } from '../factories/mfa.ts';
import { startSmtpServer, type TestSmtpServer } from '../setup/smtp.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

async function waitForStatus(id: string, status: string): Promise<OutboxMessage> {
  for (let i = 0; i < 200; i++) {
    const row = await OutboxMessage.findByPk(id);
    if (row?.status === status) return row;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`outbox message ${id} never reached ${status}`);
}

describe('E-mail over SMTP (a real SMTP server on loopback, sent by the mail.send job)', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let admin: Awaited<ReturnType<typeof buildAdmin>>;
  let orgId: string;

  before(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({
      workers: true,
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Guildhall <no-reply@guildhall.test>',
        MAIL_RETRY_DELAY_SECONDS: '1',
        MAIL_RETRY_LIMIT: '3',
      },
    });
    admin = await buildAdmin(t, { firstName: 'Mia', lastName: 'Mailer' });
    orgId = (await buildOrganization()).id;
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  it('when a user is created with a generated password, then the welcome e-mail with it arrives and the outbox keeps no body', async () => {
    const res = await t.http
      .post('/api/admin/users')
      .set(bearer(admin.token))
      .send({
        firstName: 'Wendy',
        lastName: 'Welcome',
        email: 'wendy@mail.test',
        role: 'ROLE_MEMBER',
        organizationId: orgId,
        generatePassword: true,
      })
      .expect(201);
    const mail = await smtp.waitFor((m) => m.to.includes('wendy@mail.test'));
    assert.equal(mail.subject, 'Welcome to Guildhall');
    assert.equal(mail.from, 'no-reply@guildhall.test');
    assert.match(mail.text, /Hello Wendy,/);
    const password = /temporary password is: (\S+)/.exec(mail.text)?.[1];
    assert.ok(password);
    await t.http.post('/api/auth/login').send({ email: 'wendy@mail.test', password }).expect(200);
    const row = await waitForStatus((await OutboxMessage.findOne({ where: { userId: res.body.id } }))!.id, 'sent');
    assert.equal(row.attempts, 1);
    assert.ok(row.sentAt && row.providerMessageId);
    assert.equal(row.textBody, null, 'the generated password is not kept once delivered');
  });

  it('when a password reset is sent, then the e-mail arrives with a working single-use link', async () => {
    const user = await buildUser({ organizationId: orgId, role: 'ROLE_CLIENT_ADMIN', email: 'reset@mail.test' });
    await t.http.post(`/api/admin/users/${user.id}/reset-password`).set(bearer(admin.mfaToken)).expect(202);
    const mail = await smtp.waitFor(
      (m) => m.to.includes('reset@mail.test') && m.subject === 'Reset your Guildhall password',
    );
    const token = /\/portal\/client\/reset-password#token=([\w-]+)/.exec(mail.text)?.[1];
    assert.ok(token);
    await t.http.post('/api/auth/password-reset').send({ token, password: 'chosen from the e-mail' }).expect(204);
    await t.http
      .post('/api/auth/login')
      .send({ email: 'reset@mail.test', password: 'chosen from the e-mail' })
      .expect(200);
  });

  it('when a user is impersonated, then the user receives a notice naming the administrator', async () => {
    const user = await buildUser({ organizationId: orgId, role: 'ROLE_MEMBER', email: 'watched@mail.test' });
    await t.http
      .post(`/api/admin/users/${user.id}/impersonate`)
      .set(bearer(admin.mfaToken))
      .send({ reason: 'billing question' })
      .expect(201);
    const mail = await smtp.waitFor((m) => m.to.includes('watched@mail.test'));
    assert.equal(mail.subject, 'A Guildhall administrator accessed your account');
    assert.match(mail.text, /Mia Mailer, a platform administrator, started a session at .* \(read-only\)/);
    assert.match(mail.text, /Reason given: billing question/);
    await t.http.delete('/api/admin/impersonate').set(bearer(admin.mfaToken)).expect(200);
  });

  it('when the SMTP server refuses a message, then the job retries it until it is accepted', async () => {
    smtp.failNext(1);
    const res = await t.http
      .post('/api/admin/users')
      .set(bearer(admin.token))
      .send({
        firstName: 'Retry',
        lastName: 'Later',
        email: 'retry@mail.test',
        role: 'ROLE_MEMBER',
        organizationId: orgId,
      })
      .expect(201);
    await smtp.waitFor((m) => m.to.includes('retry@mail.test'), 30_000);
    const row = await waitForStatus((await OutboxMessage.findOne({ where: { userId: res.body.id } }))!.id, 'sent');
    assert.equal(row.attempts, 2, 'one refusal, then delivered');
  });
});
