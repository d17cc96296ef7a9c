import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { AuditEntry } from '../../src/modules/audit/audit-entry.model.ts';
import { ImpersonationRequest } from '../../src/modules/impersonation/impersonation-request.model.ts';
import { OutboxMessage } from '../../src/modules/mail/outbox-message.model.ts';
import { bearer, buildOrganization, buildUser } from '../factories/index.ts';
import { buildAdmin, mfaTokenFor } from '../factories/mfa.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

async function waitForRequests(sessionId: string, count: number): Promise<ImpersonationRequest[]> {
  for (let i = 0; i < 50; i++) {
    const rows = await ImpersonationRequest.findAll({ where: { sessionId }, order: [['id', 'ASC']] });
    if (rows.length >= count) return rows;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`expected ${count} logged requests for session ${sessionId}`);
}

describe('Impersonation', () => {
  let t: TestApp;
  let orgId: string;

  before(async () => {
    t = await startTestApp();
    orgId = (await buildOrganization()).id;
  });
  after(() => t.close());

  const start = (token: string, userId: string, body: Record<string, unknown> = {}) =>
    t.http.post(`/api/admin/users/${userId}/impersonate`).set(bearer(token)).send(body);
  const end = (token: string) => t.http.delete('/api/admin/impersonate').set(bearer(token));

  it('when an MFA-verified admin impersonates a member, then a 15-minute token acts as the member with the admin as actor', async () => {
    const { admin, mfaToken } = await buildAdmin(t, { firstName: 'Support', lastName: 'Person' });
    const member = await buildUser({ organizationId: orgId, role: 'ROLE_MEMBER' });
    const res = await start(mfaToken, member.id, { reason: 'ticket #42' }).expect(201);
    assert.equal(res.headers.location, '/api/admin/impersonate', 'where the session is ended');
    assert.equal(res.body.tokenType, 'Bearer');
    assert.equal(res.body.expiresIn, 900);
    assert.equal(res.body.redirectUrl, `${t.config.baseUrl}/portal/member`);
    assert.equal(res.body.session.status, 'active');
    assert.equal(res.body.session.mode, 'read_only');
    const claims = decodeJwt(res.body.accessToken);
    assert.equal(claims.sub, member.id);
    assert.deepEqual(claims.act, { sub: admin.id });
    assert.equal(claims.sid, res.body.session.id);
    assert.equal(claims.exp! - claims.iat!, 900);

    const me = await t.http.get('/api/auth/me').set(bearer(res.body.accessToken)).expect(200);
    assert.equal(me.body.id, member.id);
    assert.deepEqual(me.body.impersonation, {
      sessionId: res.body.session.id,
      impersonatorId: admin.id,
      mode: 'read_only',
    });

    const started = await AuditEntry.findOne({ where: { action: 'impersonation.started', targetId: member.id } });
    assert.equal(started?.actorId, admin.id);
    assert.equal((started!.after as Record<string, unknown>).reason, 'ticket #42');
    const notice = await OutboxMessage.findOne({ where: { userId: member.id, template: 'impersonation_notice' } });
    assert.match(notice!.textBody!, /Support Person, a platform administrator/);
    await end(res.body.accessToken).expect(200);
  });

  it('when the target is a platform admin, yourself, or a staff role the admin outranks not, then it is 403 impersonation_forbidden', async () => {
    const { admin, mfaToken } = await buildAdmin(t);
    const otherAdmin = await buildUser({ role: 'ROLE_PLATFORM_ADMIN' });
    expectProblem(await start(mfaToken, otherAdmin.id), 403, 'impersonation_forbidden');
    expectProblem(await start(mfaToken, admin.id), 403, 'impersonation_forbidden');
    const clientAdmin = await buildUser({ organizationId: orgId, role: 'ROLE_CLIENT_ADMIN' });
    await start(mfaToken, clientAdmin.id).expect(201); // lower privilege than a platform admin
    await end(mfaToken).expect(200);
  });

  it('when the admin token is not MFA-verified or the caller is not an admin, then it is refused', async () => {
    const { token } = await buildAdmin(t);
    const member = await buildUser({ organizationId: orgId, role: 'ROLE_MEMBER' });
    const refused = await start(token, member.id);
    expectProblem(refused, 403, 'mfa_required');
    assert.match(refused.body.detail, /POST \/api\/auth\/mfa\/verify.*POST \/api\/auth\/mfa\/enrollment/);
    const clientAdmin = await buildUser({ organizationId: orgId, role: 'ROLE_CLIENT_ADMIN' });
    const res = await t.http
      .post('/api/auth/login')
      .send({ email: clientAdmin.email, password: 'correct horse battery staple' });
    expectProblem(await start(res.body.accessToken, member.id), 403, 'forbidden');
  });

  it('when an impersonation is started while impersonating, with the token or from another open session, then it is 409 already_impersonating', async () => {
    const { mfaToken } = await buildAdmin(t);
    const first = await buildUser({ organizationId: orgId, role: 'ROLE_MEMBER' });
    const second = await buildUser({ organizationId: orgId, role: 'ROLE_MEMBER' });
    const res = await start(mfaToken, first.id, { mode: 'act_as_user' }).expect(201);
    expectProblem(await start(res.body.accessToken, second.id), 409, 'already_impersonating');
    expectProblem(await start(mfaToken, second.id), 409, 'already_impersonating');
    await end(mfaToken).expect(200);
    await start(mfaToken, second.id).expect(201);
    await end(mfaToken).expect(200);
  });

  it('when the session is read-only, then every write with the token is refused, in any module, and every request is logged', async () => {
    const { admin, mfaToken } = await buildAdmin(t);
    const clientAdmin = await buildUser({ organizationId: orgId, role: 'ROLE_CLIENT_ADMIN' });
    const res = await start(mfaToken, clientAdmin.id).expect(201);
    const token = res.body.accessToken;
    await t.http.get('/api/auth/me').set(bearer(token)).expect(200);
    await t.http.get('/api/api-keys').set(bearer(token)).expect(200); // reading what the user may read is allowed
    expectProblem(
      await t.http.post('/api/api-keys').set(bearer(token)).send({ name: 'nope' }),
      403,
      'read_only_impersonation',
    );
    expectProblem(
      await t.http.put(`/api/admin/users/${clientAdmin.id}`).set(bearer(token)).send({ firstName: 'X' }),
      403,
      'read_only_impersonation',
    );
    expectProblem(await t.http.post('/api/auth/mfa/enrollment').set(bearer(token)), 403, 'read_only_impersonation');
    const ended = await end(token);
    assert.equal(ended.status, 200, JSON.stringify(ended.body));
    const logged = await waitForRequests(res.body.session.id, 6);
    assert.deepEqual(
      logged.map((r) => `${r.method} ${r.path} ${r.statusCode}`),
      [
        'GET /api/auth/me 200',
        'GET /api/api-keys 200',
        'POST /api/api-keys 403',
        `PUT /api/admin/users/${clientAdmin.id} 403`,
        'POST /api/auth/mfa/enrollment 403',
        'DELETE /api/admin/impersonate 200',
      ],
    );
    assert.ok(logged.every((r) => r.adminId === admin.id && r.targetUserId === clientAdmin.id && r.requestId));
    assert.equal(ended.body.session.status, 'ended');
    assert.equal(ended.body.returnUrl, `${t.config.baseUrl}/admin/resources/users`);
  });

  it('when the session acts as the user, then writes go through and are audited with the impersonator', async () => {
    const { admin, mfaToken } = await buildAdmin(t);
    const clientAdmin = await buildUser({ organizationId: orgId, role: 'ROLE_CLIENT_ADMIN' });
    const res = await start(mfaToken, clientAdmin.id, { mode: 'act_as_user' }).expect(201);
    const created = await t.http
      .post('/api/api-keys')
      .set(bearer(res.body.accessToken))
      .send({ name: 'on behalf' })
      .expect(201);
    assert.equal(created.headers.location, `/api/api-keys/${created.body.id}`);
    const audit = await AuditEntry.findOne({ where: { action: 'api_key.created', targetId: created.body.id } });
    assert.equal(audit?.actorId, clientAdmin.id);
    assert.equal(audit?.impersonatorId, admin.id);
    await waitForRequests(res.body.session.id, 1);
    await end(res.body.accessToken).expect(200);
  });

  it('when the session is ended, then the token stops working and the end, duration and request count are recorded', async () => {
    const { admin, mfaToken } = await buildAdmin(t);
    const member = await buildUser({ organizationId: orgId, role: 'ROLE_MEMBER' });
    const res = await start(mfaToken, member.id).expect(201);
    await t.http.get('/api/auth/me').set(bearer(res.body.accessToken)).expect(200);
    await waitForRequests(res.body.session.id, 1);
    t.clock.advance(90_000);
    const ended = await end(mfaToken).expect(200); // the admin's own token ends the admin's open session
    assert.equal(ended.body.session.durationSeconds, 90);
    assert.equal(ended.body.session.requestCount, 1);
    assert.equal(ended.body.session.endReason, 'exited');
    expectProblem(await t.http.get('/api/auth/me').set(bearer(res.body.accessToken)), 401, 'unauthenticated');
    expectProblem(await end(mfaToken), 409, 'not_impersonating');
    const audit = await AuditEntry.findOne({ where: { action: 'impersonation.ended', actorId: admin.id } });
    assert.deepEqual(audit?.after, {
      sessionId: res.body.session.id,
      endReason: 'exited',
      endedAt: ended.body.session.endedAt,
      durationSeconds: 90,
      requestCount: 1,
    });
  });

  it('when 15 minutes pass, then the token is expired and the session reads as ended by expiry', async () => {
    const { admin, mfaToken } = await buildAdmin(t);
    const member = await buildUser({ organizationId: orgId, role: 'ROLE_MEMBER' });
    const res = await start(mfaToken, member.id).expect(201);
    t.clock.advance(14 * 60_000 + 59_000);
    await t.http.get('/api/auth/me').set(bearer(res.body.accessToken)).expect(200);
    t.clock.advance(2_000);
    expectProblem(await t.http.get('/api/auth/me').set(bearer(res.body.accessToken)), 401, 'token_expired');
    const adminToken = (await buildAdmin(t)).token; // the first admin's login token is still valid, but be independent of it
    const sessions = await t.http
      .get(`/api/admin/impersonations?adminId=${admin.id}`)
      .set(bearer(adminToken))
      .expect(200);
    assert.equal(sessions.body.data[0].status, 'expired');
    assert.equal(sessions.body.data[0].durationSeconds, 900);
    assert.equal(
      await t.container.services.impersonation.closeExpired({ adminId: admin.id }),
      1,
      'the sweep closes it',
    );
    assert.ok(await AuditEntry.findOne({ where: { action: 'impersonation.ended', actorId: admin.id } }));
    expectProblem(await end(mfaToken), 409, 'not_impersonating');
    await start(mfaToken, member.id).expect(201); // a new session may start
    await end(mfaToken).expect(200);
  });

  it('when an admin starts more than 10 sessions within an hour, then the 11th is 429 with Retry-After until the oldest leaves the hour', async () => {
    const { admin, mfaToken } = await buildAdmin(t);
    const member = await buildUser({ organizationId: orgId, role: 'ROLE_MEMBER' });
    for (let i = 0; i < 10; i++) {
      await start(mfaToken, member.id).expect(201);
      await end(mfaToken).expect(200);
      t.clock.advance(60_000);
    }
    const refused = await start(mfaToken, member.id);
    expectProblem(refused, 429, 'impersonation_limit');
    assert.equal(Number(refused.headers['retry-after']), 50 * 60, 'the first session leaves the hour in 50 minutes');
    t.clock.advance(50 * 60_000 - 5_000);
    expectProblem(await start(mfaToken, member.id), 429, 'impersonation_limit');
    t.clock.advance(6_000);
    const renewed = await mfaTokenFor(t, admin); // the first token's hour is over too
    await start(renewed, member.id).expect(201);
    expectProblem(await start(renewed, member.id), 409, 'already_impersonating');
    await end(renewed).expect(200);
  });
});
