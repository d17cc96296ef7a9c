import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiKey } from '../../src/modules/api-keys/api-key.model.ts';
import { AuditEntry } from '../../src/modules/audit/audit-entry.model.ts';
import { Member } from '../../src/modules/members/member.model.ts';
import { User } from '../../src/modules/users/user.model.ts';
import { bearer, buildApiKey, buildOrganization, buildUser, PASSWORD, tokenFor } from '../factories/index.ts';
import { buildAdmin } from '../factories/mfa.ts';
import { buildMember } from '../factories/records.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('Admin users: soft delete and permanent delete', () => {
  let t: TestApp;
  let admin: Awaited<ReturnType<typeof buildAdmin>>;
  let orgId: string;

  before(async () => {
    t = await startTestApp();
    admin = await buildAdmin(t);
    orgId = (await buildOrganization()).id;
  });
  after(() => t.close());

  const softDelete = (id: string, query = '', token = admin.mfaToken) =>
    t.http.delete(`/api/admin/users/${id}${query}`).set(bearer(token));
  const purge = (id: string, query = '', token = admin.mfaToken) =>
    t.http.delete(`/api/admin/users/${id}/permanent${query}`).set(bearer(token));

  it('when deleting without a verified MFA step, then it is 403 mfa_required', async () => {
    const user = await buildUser({ organizationId: orgId });
    expectProblem(await softDelete(user.id, '', admin.token), 403, 'mfa_required');
    assert.ok(await User.findByPk(user.id));
  });

  it('when admins delete themselves, then it is 403 cannot_delete_self', async () => {
    expectProblem(await softDelete(admin.admin.id), 403, 'cannot_delete_self');
    expectProblem(await purge(admin.admin.id, `?confirm=${admin.admin.email}`), 403, 'cannot_delete_self');
  });

  it('when a user with associated data is deleted, then the answer warns about it, the user cannot log in and the trail stays', async () => {
    const user = await buildUser({ organizationId: orgId, role: 'ROLE_CLIENT_ADMIN' });
    const userToken = await tokenFor(t, user);
    await t.http.post('/api/api-keys').set(bearer(userToken)).send({ name: 'made by the user' }).expect(201);
    const res = await softDelete(user.id).expect(200);
    assert.ok(res.body.user.deletedAt);
    assert.equal(res.body.transferredTo, null);
    const keys = res.body.associatedData.find((d: { type: string }) => d.type === 'api_keys');
    assert.deepEqual(keys, { type: 'api_keys', description: keys.description, count: 1, transferable: true });
    assert.ok(
      res.body.warnings.some((w: string) => /1 × API keys created by the user/.test(w) && /transfer or revoke/.test(w)),
    );
    assert.ok(res.body.associatedData.find((d: { type: string }) => d.type === 'audit_entries').count >= 1);

    expectProblem(
      await t.http.post('/api/auth/login').send({ email: user.email, password: PASSWORD }),
      401,
      'invalid_credentials',
    );
    expectProblem(await t.http.get('/api/auth/me').set(bearer(userToken)), 401, 'unauthenticated');
    const list = await t.http
      .get(`/api/admin/users?email=${encodeURIComponent(user.email)}`)
      .set(bearer(admin.token))
      .expect(200);
    assert.equal(list.body.data.length, 0, 'gone from the datagrid');
    const deleted = await t.http
      .get(`/api/admin/users?deleted=true&email=${encodeURIComponent(user.email)}`)
      .set(bearer(admin.token))
      .expect(200);
    assert.equal(deleted.body.data.length, 1, 'listed among the deleted');
    const trail = await AuditEntry.findAll({ where: { targetId: user.id } });
    assert.ok(trail.some((a) => a.action === 'user.deleted' && a.actorId === admin.admin.id));
    assert.ok(
      await AuditEntry.findOne({ where: { actorId: user.id, action: 'api_key.created' } }),
      "the user's own actions stay in the trail",
    );
  });

  it('when ownership is transferred first, then the data moves to the other user of the same organization', async () => {
    const leaving = await buildUser({ organizationId: orgId });
    const heir = await buildUser({ organizationId: orgId });
    const outsider = await buildUser();
    const { apiKey } = await buildApiKey(orgId);
    await apiKey.update({ createdByUserId: leaving.id });
    // a write's query holds options, not filters: a malformed one is validation_failed naming it
    const malformed = expectProblem(await softDelete(leaving.id, '?transferTo=abc'), 400, 'validation_failed');
    assert.deepEqual(
      malformed.errors.map((e: { field: string }) => e.field),
      ['transferTo'],
    );
    expectProblem(await softDelete(leaving.id, `?transferTo=${outsider.id}`), 422, 'unprocessable');
    expectProblem(await softDelete(leaving.id, `?transferTo=${leaving.id}`), 422, 'unprocessable');
    const res = await softDelete(leaving.id, `?transferTo=${heir.id}`).expect(200);
    assert.equal(res.body.transferredTo, heir.id);
    assert.ok(res.body.warnings.some((w: string) => w.includes(`transferred to user ${heir.id}`)));
    assert.equal((await ApiKey.findByPk(apiKey.id))?.createdByUserId, heir.id);
  });

  it('when a user whose account is linked to a member record is deleted, then the record is named among the associated data and stays linked until a purge', async () => {
    const user = await buildUser({ organizationId: orgId });
    const member = await buildMember(orgId, { userId: user.id, email: user.email });
    const res = await softDelete(user.id).expect(200);
    const records = res.body.associatedData.find((d: { type: string }) => d.type === 'member_records');
    assert.deepEqual(records, {
      type: 'member_records',
      description: records.description,
      count: 1,
      transferable: false,
    });
    assert.ok(res.body.warnings.some((w: string) => /^1 × Member record linked to this account/.test(w)));
    assert.equal((await Member.findByPk(member.id))?.userId, user.id, 'a soft deletion keeps the link');
    await purge(user.id, `?confirm=${user.email}`).expect(204);
    assert.equal((await Member.findByPk(member.id))?.userId, null, 'a purge unlinks the record and keeps it');
  });

  it('when the user does not exist, then it is 404', async () => {
    expectProblem(await softDelete('00000000-0000-4000-8000-000000000000'), 404, 'not_found');
  });

  it('when a live user is purged, then it is 409: soft delete comes first', async () => {
    const user = await buildUser({ organizationId: orgId });
    expectProblem(await purge(user.id, `?confirm=${user.email}`), 409, 'conflict');
  });

  it('when a soft-deleted user is purged without the e-mail typed again, then it is 422 confirmation_required', async () => {
    const user = await buildUser({ organizationId: orgId });
    await softDelete(user.id).expect(200);
    expectProblem(await purge(user.id), 422, 'confirmation_required');
    expectProblem(await purge(user.id, '?confirm=someone-else@example.test'), 422, 'confirmation_required');
    expectProblem(await purge(user.id, `?confirm=${user.email}`, admin.token), 403, 'mfa_required');
  });

  it('when a soft-deleted user is purged with confirmation, then the row is gone but the audit trail remains', async () => {
    const user = await buildUser({ organizationId: orgId });
    await softDelete(user.id).expect(200);
    await t.http
      .delete(`/api/admin/users/${user.id}/permanent?confirm=${user.email.toUpperCase()}`)
      .set(bearer(admin.mfaToken))
      .expect(204);
    assert.equal(await User.findByPk(user.id, { paranoid: false }), null);
    const actions = (await AuditEntry.findAll({ where: { targetId: user.id }, order: [['id', 'ASC']] })).map(
      (a) => a.action,
    );
    assert.deepEqual(actions, ['user.deleted', 'user.purged']);
    expectProblem(await t.http.get(`/api/admin/users/${user.id}`).set(bearer(admin.token)), 404, 'not_found');
  });
});
