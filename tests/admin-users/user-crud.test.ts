import assert from 'node:assert/strict';
import type { AppError } from '../../src/shared/errors.ts';
import { after, before, describe, it } from 'node:test';
import { AuditEntry } from '../../src/modules/audit/audit-entry.model.ts';
import { OutboxMessage } from '../../src/modules/mail/outbox-message.model.ts';
import { User } from '../../src/modules/users/user.model.ts';
import { bearer, buildOrganization, buildUser } from '../factories/index.ts';
import { buildMember } from '../factories/records.ts';
import { buildAdmin } from '../factories/mfa.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('Admin users: create, read, update', () => {
  let t: TestApp;
  let token: string;
  let plainToken: string; // the same admin's token without the MFA step
  let adminId: string;
  let orgId: string;

  before(async () => {
    t = await startTestApp();
    const built = await buildAdmin(t);
    token = built.mfaToken;
    plainToken = built.token;
    adminId = built.admin.id;
    orgId = (await buildOrganization({ name: 'Crud Org' })).id;
  });
  after(() => t.close());

  const create = (body: Record<string, unknown>) => t.http.post('/api/admin/users').set(bearer(token)).send(body);
  const update = (id: string, body: Record<string, unknown>) =>
    t.http.put(`/api/admin/users/${id}`).set(bearer(token)).send(body);

  it('when a user is created with a password, then it can log in, a welcome e-mail is queued and the creation audited', async () => {
    const res = await create({
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'Ada@Crud.test',
      role: 'ROLE_CLIENT_ADMIN',
      organizationId: orgId,
      phone: '+44 20 7946 0000',
      password: 'a long initial password',
    }).expect(201);
    assert.equal(res.body.name, 'Ada Lovelace');
    assert.equal(res.headers.location, `/api/admin/users/${res.body.id}`);
    assert.equal(res.body.status, 'active');
    assert.deepEqual(res.body.organization, { id: orgId, name: 'Crud Org' });
    assert.equal(res.body.lastLoginAt, null);
    await t.http
      .post('/api/auth/login')
      .send({ email: 'ada@crud.test', password: 'a long initial password' })
      .expect(200);
    const mail = await OutboxMessage.findOne({ where: { userId: res.body.id } });
    assert.equal(mail?.template, 'welcome');
    assert.equal(mail?.status, 'outbox', 'without SMTP_URL the message stays in the outbox');
    assert.match(mail!.textBody!, /Log in with the password your administrator gave you/);
    assert.doesNotMatch(mail!.textBody!, /a long initial password/, 'a password chosen by the admin is not e-mailed');
    const audit = await AuditEntry.findOne({ where: { action: 'user.created', targetId: res.body.id } });
    assert.equal(audit?.actorId, adminId);
    assert.equal((audit!.after as Record<string, unknown>).email, 'Ada@Crud.test');
    assert.equal(JSON.stringify(audit?.after).includes('password'), false, 'no secret in the trail');
  });

  it('when generatePassword is chosen, then the generated password is e-mailed and works', async () => {
    const res = await create({
      firstName: 'Gen',
      lastName: 'Erated',
      email: 'gen@crud.test',
      role: 'ROLE_MEMBER',
      organizationId: orgId,
      generatePassword: true,
    }).expect(201);
    const mail = await OutboxMessage.findOne({ where: { userId: res.body.id } });
    const password = /temporary password is: (\S+)/.exec(mail!.textBody!)?.[1];
    assert.ok(password, 'the welcome e-mail carries the generated password');
    await t.http.post('/api/auth/login').send({ email: 'gen@crud.test', password }).expect(200);
  });

  it('when a user is created without its required fields (as the portal form may send it), then 400 names each', async () => {
    const actor = {
      type: 'user',
      id: adminId,
      organizationId: null,
      role: 'ROLE_PLATFORM_ADMIN',
      mfaVerified: true,
    } as const;
    await assert.rejects(
      t.container.services.users.create(actor, {
        firstName: 'Only',
        lastName: '',
        email: '',
        role: undefined as never,
        organizationId: orgId,
      }),
      (error: AppError) => {
        assert.equal(error.code, 'validation_failed');
        assert.deepEqual(error.extras.errors, [
          { field: 'lastName', message: 'is required' },
          { field: 'email', message: 'is required' },
          { field: 'role', message: 'is required' },
        ]);
        return true;
      },
    );
  });

  it('when a pending account is created with a password, then the e-mail links to confirming the address, and following it activates the account', async () => {
    const res = await create({
      firstName: 'Paula',
      lastName: 'Pending',
      email: 'paula@crud.test',
      role: 'ROLE_MEMBER',
      organizationId: orgId,
      status: 'pending',
      password: 'an initial password',
    }).expect(201);
    const login = (password: string) => t.http.post('/api/auth/login').send({ email: 'paula@crud.test', password });
    expectProblem(await login('an initial password'), 403, 'account_inactive');
    const mail = await OutboxMessage.findOne({ where: { userId: res.body.id } });
    assert.match(mail!.textBody!, /becomes active once you confirm this address/);
    const link = /reset-password#token=([\w-]{40,})/.exec(mail!.textBody!)?.[1];
    assert.ok(link, mail!.textBody!);
    await t.http.post('/api/auth/password-reset').send({ token: link, password: 'a password of my own' }).expect(204);
    assert.equal((await User.findByPk(res.body.id))?.status, 'active');
    await login('a password of my own').expect(200);
    const audit = await AuditEntry.findOne({ where: { action: 'user.status_changed', targetId: res.body.id } });
    assert.deepEqual(audit?.after, { status: 'active', via: 'email_verified' });
  });

  it('when no password is given and the status is pending, then the welcome e-mail says so and links to choosing a password', async () => {
    const res = await create({
      firstName: 'Pat',
      lastName: 'Pending',
      email: 'pat@crud.test',
      role: 'ROLE_SPONSOR_USER',
      organizationId: orgId,
      status: 'pending',
    }).expect(201);
    assert.equal(res.body.status, 'pending');
    const mail = await OutboxMessage.findOne({ where: { userId: res.body.id } });
    assert.match(mail!.textBody!, /becomes active once you confirm this address/);
    assert.match(mail!.textBody!, /\/portal\/sponsor\/reset-password#token=[\w-]{40,}/);
    expectProblem(
      await t.http.post('/api/auth/login').send({ email: 'pat@crud.test', password: 'whatever-password' }),
      401,
      'invalid_credentials',
    );
  });

  it('when the e-mail is already used (in any case), then it is 409 email_taken; a soft-deleted account frees it', async () => {
    const existing = await buildUser({ email: 'taken@crud.test' });
    const body = {
      firstName: 'Dup',
      lastName: 'Licate',
      email: 'TAKEN@crud.test',
      role: 'ROLE_MEMBER',
      organizationId: orgId,
    };
    const problem = expectProblem(await create(body), 409, 'email_taken');
    assert.equal(problem.errors[0].field, 'email');
    await User.update({ deletedAt: new Date() }, { where: { id: existing.id } });
    await create(body).expect(201);
  });

  it('when the request is invalid, then it is refused before anything is written', async () => {
    // an update with nothing in it names the body, not the validator's "/body"
    const empty = expectProblem(await update(adminId, {}), 400, 'validation_failed');
    assert.deepEqual(
      empty.errors.map((e: { field: string }) => e.field),
      ['body'],
    );
    expectProblem(
      await create({ firstName: 'No', lastName: 'Org', email: 'noorg@crud.test', role: 'ROLE_MEMBER' }),
      400,
      'validation_failed',
    );
    expectProblem(
      await create({
        firstName: 'Bad',
        lastName: 'Status',
        email: 'bad@crud.test',
        role: 'ROLE_MEMBER',
        organizationId: orgId,
        status: 'suspended',
      }),
      400,
      'validation_failed',
    );
    expectProblem(
      await create({
        firstName: 'Both',
        lastName: 'Ways',
        email: 'both@crud.test',
        role: 'ROLE_MEMBER',
        organizationId: orgId,
        password: 'a long initial password',
        generatePassword: true,
      }),
      400,
      'validation_failed',
    );
    expectProblem(
      await create({
        firstName: 'Ghost',
        lastName: 'Org',
        email: 'ghost@crud.test',
        role: 'ROLE_MEMBER',
        organizationId: '00000000-0000-4000-8000-000000000000',
      }),
      422,
      'unprocessable',
    );
    assert.equal(
      await User.count({ where: { email: ['noorg@crud.test', 'bad@crud.test', 'both@crud.test', 'ghost@crud.test'] } }),
      0,
    );
    const admin = await create({
      firstName: 'Plat',
      lastName: 'Form',
      email: 'platform@crud.test',
      role: 'ROLE_PLATFORM_ADMIN',
    }).expect(201);
    assert.equal(admin.body.organization, null, 'a platform admin needs no organization');
  });

  it('when a user is fetched, then details include the associated data a deletion would warn about; unknown ids are 404', async () => {
    const user = await buildUser({ organizationId: orgId });
    const res = await t.http.get(`/api/admin/users/${user.id}`).set(bearer(token)).expect(200);
    assert.equal(res.body.email, user.email);
    assert.deepEqual(
      res.body.associatedData.map((d: { type: string }) => d.type),
      ['api_keys', 'resources', 'audit_entries', 'impersonation_sessions', 'member_records', 'chat_conversations'],
    );
    expectProblem(
      await t.http.get('/api/admin/users/00000000-0000-4000-8000-000000000000').set(bearer(token)),
      404,
      'not_found',
    );
  });

  it('when a user is updated, then only sent fields change and each kind of change is audited with before and after', async () => {
    const user = await buildUser({ organizationId: orgId, role: 'ROLE_CLIENT_ADMIN', firstName: 'Old' });
    const res = await update(user.id, { firstName: 'New', status: 'suspended', role: 'ROLE_MEMBER' }).expect(200);
    assert.equal(res.body.firstName, 'New');
    assert.equal(res.body.lastName, 'User');
    assert.equal(res.body.status, 'suspended');
    const trail = await AuditEntry.findAll({ where: { targetId: user.id }, order: [['id', 'ASC']] });
    const byAction = Object.fromEntries(trail.map((a) => [a.action, a]));
    assert.deepEqual(byAction['user.role_changed']?.before, { role: 'ROLE_CLIENT_ADMIN' });
    assert.deepEqual(byAction['user.role_changed']?.after, { role: 'ROLE_MEMBER' });
    assert.deepEqual(byAction['user.status_changed']?.after, { status: 'suspended' });
    assert.deepEqual(byAction['user.updated']?.before, { firstName: 'Old' });
    assert.ok(
      trail.every((a) => a.requestId === res.headers['x-request-id']),
      'each entry carries the request id',
    );
    expectProblem(
      await t.http.post('/api/auth/login').send({ email: user.email, password: 'correct horse battery staple' }),
      403,
      'account_inactive',
    );
  });

  it('when a role is raised without confirmation, then it is 422 confirmation_required; with it, it applies', async () => {
    const user = await buildUser({ organizationId: orgId, role: 'ROLE_MEMBER' });
    expectProblem(await update(user.id, { role: 'ROLE_CLIENT_ADMIN' }), 422, 'confirmation_required');
    assert.equal((await User.findByPk(user.id))?.role, 'ROLE_MEMBER');
    await update(user.id, { role: 'ROLE_CLIENT_ADMIN', confirmPrivilegeChange: true }).expect(200);
    await update(user.id, { role: 'ROLE_CLIENT_USER' }).expect(200); // lowering needs no confirmation
  });

  it('when admins change their own role or status, then it is 403 cannot_modify_self; other own fields may change', async () => {
    expectProblem(await update(adminId, { status: 'inactive' }), 403, 'cannot_modify_self');
    expectProblem(await update(adminId, { role: 'ROLE_MEMBER', organizationId: orgId }), 403, 'cannot_modify_self');
    const res = await update(adminId, { firstName: 'Renamed', role: 'ROLE_PLATFORM_ADMIN' }).expect(200);
    assert.equal(res.body.firstName, 'Renamed', 'sending the unchanged role is not a change');
  });

  it('when the e-mail is changed to one in use, then it is 409; a change of case of its own address is fine', async () => {
    const user = await buildUser({ organizationId: orgId, email: 'case@crud.test' });
    await buildUser({ organizationId: orgId, email: 'other@crud.test' });
    expectProblem(await update(user.id, { email: 'Other@crud.test' }), 409, 'email_taken');
    await update(user.id, { email: 'CASE@crud.test' }).expect(200);
  });

  it('when a role needing an organization loses it, or status is set to pending, then it is refused', async () => {
    const user = await buildUser({ organizationId: orgId, role: 'ROLE_MEMBER' });
    expectProblem(await update(user.id, { organizationId: null }), 400, 'validation_failed');
    expectProblem(await update(user.id, { status: 'pending' }), 400, 'validation_failed');
    expectProblem(await update('00000000-0000-4000-8000-000000000000', { firstName: 'X' }), 404, 'not_found');
  });

  it('when a platform admin is placed in an organization, then it is refused; a promotion leaves the organization', async () => {
    const created = await create({
      firstName: 'P',
      lastName: 'A',
      email: 'placed@crud.test',
      role: 'ROLE_PLATFORM_ADMIN',
      organizationId: orgId,
    });
    const problem = expectProblem(created, 400, 'validation_failed');
    assert.equal(problem.errors[0].field, 'organizationId');
    const admin = await buildUser({ role: 'ROLE_PLATFORM_ADMIN', organizationId: null });
    expectProblem(await update(admin.id, { organizationId: orgId }), 400, 'validation_failed');
    assert.equal((await User.findByPk(admin.id))?.organizationId, null);

    const promoted = await buildUser({ organizationId: orgId, role: 'ROLE_CLIENT_ADMIN' });
    // the highest privilege is granted with a verified MFA step, as impersonation and deletion are
    const body = { role: 'ROLE_PLATFORM_ADMIN', confirmPrivilegeChange: true };
    const unverified = t.http.put(`/api/admin/users/${promoted.id}`).set(bearer(plainToken)).send(body);
    expectProblem(await unverified, 403, 'mfa_required');
    const createdUnverified = t.http
      .post('/api/admin/users')
      .set(bearer(plainToken))
      .send({ firstName: 'P', lastName: 'A', email: 'unverified@crud.test', role: 'ROLE_PLATFORM_ADMIN' });
    expectProblem(await createdUnverified, 403, 'mfa_required');
    assert.equal((await User.findByPk(promoted.id))?.role, 'ROLE_CLIENT_ADMIN');
    const res = await update(promoted.id, { role: 'ROLE_PLATFORM_ADMIN', confirmPrivilegeChange: true }).expect(200);
    assert.equal(res.body.organization, null);
    assert.equal((await User.findByPk(promoted.id))?.organizationId, null);
  });

  it('when a user moves to another organization (or becomes a platform admin), then the old organization’s member record is unlinked, not shared across tenants', async () => {
    const other = (await buildOrganization({ name: 'Other Crud Org' })).id;
    const mover = await buildUser({ organizationId: orgId, role: 'ROLE_CLIENT_ADMIN' });
    const record = await buildMember(orgId, { userId: mover.id, email: mover.email });
    await update(mover.id, { organizationId: other }).expect(200);
    await record.reload();
    assert.equal(record.userId, null, 'the record stays its organization’s, without the moved account');
    assert.equal(record.organizationId, orgId);
    const counted = (await t.http.get(`/api/admin/users/${mover.id}`).set(bearer(token)).expect(200)).body;
    assert.equal(counted.associatedData.find((d: { type: string }) => d.type === 'member_records').count, 0);
    // a record of the organization it now belongs to stays linked; so does everything when nothing moves
    const kept = await buildMember(other, { userId: mover.id, email: mover.email });
    await update(mover.id, { firstName: 'Still' }).expect(200);
    await kept.reload();
    assert.equal(kept.userId, mover.id);
    await update(mover.id, { role: 'ROLE_PLATFORM_ADMIN', confirmPrivilegeChange: true }).expect(200);
    await kept.reload();
    assert.equal(kept.userId, null, 'a platform admin belongs to no organization');
  });
});
