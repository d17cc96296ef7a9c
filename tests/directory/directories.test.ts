// Directories through the JSON API: platform admins add them (a SCIM token shown once), client admins
// read them with their users and groups; what a directory provisions is managed there, inside its
// organization only, with roles from its groups.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Directory } from '../../src/modules/directory/directory.model.ts';
import type { DirectoryUserInput } from '../../src/modules/directory/directory-provisioning.service.ts';
import { Member } from '../../src/modules/members/member.model.ts';
import { User } from '../../src/modules/users/user.model.ts';
import { bearer, buildOrganization, buildUser, mfaVerifiedTokenFor, tokenFor } from '../factories/index.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

const person = (userName: string, overrides: Partial<DirectoryUserInput> = {}): DirectoryUserInput => ({
  externalId: `ext-${userName}`,
  userName,
  givenName: 'Dana',
  familyName: 'Directory',
  email: null,
  active: true,
  department: 'Events',
  jobTitle: 'Coordinator',
  resource: { userName },
  ...overrides,
});

describe('directories', () => {
  let t: TestApp;
  let platformToken: string;
  let adminToken: string;
  let organizationId: string;
  let directoryId: string;
  let directory: Directory;
  let token: string;

  before(async () => {
    t = await startTestApp();
    platformToken = await mfaVerifiedTokenFor(t, await buildUser({ role: 'ROLE_PLATFORM_ADMIN' }));
    organizationId = (await buildOrganization()).id;
    adminToken = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
  });
  after(() => t.close());

  it('when a platform admin adds a directory, then its SCIM token is shown once and kept as a hash', async () => {
    expectProblem(
      await t.http
        .post('/api/admin/directories')
        .set(bearer(adminToken))
        .send({ organizationId, name: 'Entra', provider: 'scim' }),
      403,
      'forbidden',
    );
    const created = await t.http
      .post('/api/admin/directories')
      .set(bearer(platformToken))
      .send({ organizationId, name: 'Entra ID', provider: 'scim' })
      .expect(201);
    directoryId = created.body.id;
    token = created.body.token;
    assert.equal(created.headers.location, `/api/directories/${directoryId}`);
    await t.http
      .get(created.headers.location)
      .set(bearer(platformToken))
      .set('Guildhall-Organization', organizationId)
      .expect(200);
    assert.match(token, /^scim_/);
    assert.equal(created.body.scimUrl, `${t.config.baseUrl}/scim/v2`);
    assert.equal(created.body.tokenPrefix, token.slice(0, 12));
    assert.deepEqual(
      created.body.groupRoles.map((g: { group: string }) => g.group),
      ['admins', 'staff', 'members'],
    );
    const [rows] = await t.db.sequelize.query('SELECT token_hash FROM directories WHERE id = $1', {
      bind: [directoryId],
    });
    assert.notEqual((rows as Array<{ token_hash: string }>)[0]!.token_hash, token);
    const principal = await t.container.services.directories.verifyToken(token);
    assert.ok(principal);
    directory = await t.container.services.directories.ofActor(principal);
    expectProblem(
      await t.http
        .post('/api/admin/directories')
        .set(bearer(platformToken))
        .send({ organizationId, name: 'Brokered', provider: 'identity_service' }),
      400,
      'validation_failed',
    );
  });

  it('when the directory provisions people and groups, then roles follow the groups and the API shows them', async () => {
    const provisioning = t.container.services.directoryProvisioning;
    const ann = await provisioning.users.createUser(directory, person('ann@dir.test'));
    const bob = await provisioning.users.createUser(directory, person('bob@dir.test', { givenName: 'Bob' }));
    const admins = await provisioning.groups.createGroup(directory, { externalId: 'g-admins', displayName: 'Admins' }, [
      ann.id,
    ]);
    const staff = await provisioning.groups.createGroup(directory, { externalId: 'g-staff', displayName: 'staff' }, [
      ann.id,
      bob.id,
    ]);
    const annUser = await User.findOne({ where: { email: 'ann@dir.test' } });
    assert.equal(annUser?.role, 'ROLE_CLIENT_ADMIN', 'the highest of admins and staff');
    assert.equal(annUser?.directoryId, directoryId);
    assert.equal(annUser?.department, 'Events');
    assert.equal((await User.findOne({ where: { email: 'bob@dir.test' } }))?.role, 'ROLE_CLIENT_USER');
    await provisioning.groups.removeMembers(directory, admins.id, [ann.id]);
    assert.equal((await annUser!.reload()).role, 'ROLE_CLIENT_USER');
    await provisioning.groups.removeMembers(directory, staff.id, [bob.id]);
    assert.equal(
      (await User.findOne({ where: { email: 'bob@dir.test' } }))?.role,
      'ROLE_MEMBER',
      'no group: the default',
    );

    const listed = await t.http.get('/api/directories').set(bearer(adminToken)).expect(200);
    assert.equal(listed.body.data[0].userCount, 2);
    assert.equal(listed.body.data[0].groupCount, 2);
    assert.equal(listed.body.data[0].token, undefined);
    await t.http.get(`/api/directories/${directoryId}`).set(bearer(adminToken)).expect(200);
    const users = await t.http.get(`/api/directories/${directoryId}/users`).set(bearer(adminToken)).expect(200);
    const ann2 = users.body.data.find((u: { userName: string }) => u.userName === 'ann@dir.test');
    assert.deepEqual(ann2.schemas, ['urn:ietf:params:scim:schemas:core:2.0:User']);
    assert.deepEqual(ann2.emails, [{ primary: true, value: 'ann@dir.test' }]);
    assert.deepEqual(ann2.groups, [{ value: staff.id, display: 'staff' }]);
    const groups = await t.http
      .get(`/api/directories/${directoryId}/groups?itemsPerPage=1`)
      .set(bearer(adminToken))
      .expect(200);
    assert.equal(groups.body.pagination.totalItems, 2);
    assert.equal(groups.body.data[0].displayName, 'Admins');
  });

  it('when an admin edits a provisioned user, then the name, e-mail and role are refused and the status is not', async () => {
    const bob = (await User.findOne({ where: { email: 'bob@dir.test' } }))!;
    const refused = expectProblem(
      await t.http.put(`/api/admin/users/${bob.id}`).set(bearer(platformToken)).send({ firstName: 'Robert' }),
      409,
      'managed_by_directory',
    );
    assert.equal(refused.errors[0].field, 'firstName');
    await t.http.put(`/api/admin/users/${bob.id}`).set(bearer(platformToken)).send({ status: 'suspended' }).expect(200);
  });

  it("when a directory names another organization's address, then it is not available and that account is untouched", async () => {
    const outsider = await buildUser({ role: 'ROLE_CLIENT_ADMIN', email: 'boss@elsewhere.test' });
    await assert.rejects(
      t.container.services.directoryProvisioning.users.createUser(directory, person('boss@elsewhere.test')),
      (error: { code: string; message: string }) =>
        error.code === 'already_exists' && /not available/.test(error.message),
    );
    await outsider.reload();
    assert.equal(outsider.directoryId, null);
    assert.equal(outsider.organizationId !== organizationId, true);
  });

  it('when a member is deactivated and then deleted, then the account stops working and the member record follows', async () => {
    const provisioning = t.container.services.directoryProvisioning;
    const row = await provisioning.users.createUser(directory, person('mo@dir.test', { givenName: 'Mo' }));
    const account = (await User.findOne({ where: { email: 'mo@dir.test' } }))!;
    const member = await Member.findOne({ where: { userId: account.id } });
    assert.equal(member?.status, 'active', 'a member gets a member record');
    const memberToken = await tokenFor(t, account);
    await t.http.get('/api/auth/me').set(bearer(memberToken)).expect(200);
    await provisioning.users.replaceUser(directory, row.id, person('mo@dir.test', { givenName: 'Mo', active: false }));
    const refused = await t.http.get('/api/auth/me').set(bearer(memberToken));
    assert.ok([401, 403].includes(refused.status), `refused at once, got ${refused.status}`);
    assert.equal((await member!.reload()).status, 'lapsed');
    await provisioning.users.deleteUser(directory, row.id);
    assert.equal((await member!.reload()).status, 'cancelled');
    assert.equal((await account.reload()).status, 'inactive', 'deactivated, not deleted, by default');
    assert.equal(await provisioning.users.findUser(directory, row.id), undefined);
  });

  it('when someone of another organization or a member reaches for the directory, then it is not theirs', async () => {
    const stranger = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN' }));
    expectProblem(await t.http.get(`/api/directories/${directoryId}`).set(bearer(stranger)), 404, 'not_found');
    expectProblem(await t.http.get(`/api/directories/${directoryId}/users`).set(bearer(stranger)), 404, 'not_found');
    expectProblem(await t.http.post(`/api/directories/${directoryId}/sync`).set(bearer(stranger)), 404, 'not_found');
    assert.equal(
      (await t.http.get('/api/directories').set(bearer(stranger)).expect(200)).body.pagination.totalItems,
      0,
    );
    const member = await tokenFor(t, await buildUser({ role: 'ROLE_MEMBER', organizationId }));
    expectProblem(await t.http.get('/api/directories').set(bearer(member)), 403, 'forbidden');
  });

  it('when a sync is asked of our own SCIM directory, then there is nothing to pull; a brokered one queues a run', async () => {
    expectProblem(
      await t.http.post(`/api/directories/${directoryId}/sync`).set(bearer(adminToken)),
      422,
      'unprocessable',
    );
    const brokered = await t.http
      .post('/api/admin/directories')
      .set(bearer(platformToken))
      .send({ organizationId, name: 'WorkOS directory', provider: 'identity_service', externalId: 'directory_01TEST' })
      .expect(201);
    const run = await t.http.post(`/api/directories/${brokered.body.id}/sync`).set(bearer(adminToken)).expect(202);
    assert.equal(run.body.status, 'queued');
    assert.equal(run.body.directoryId, brokered.body.id);
  });

  it('when the token is rotated and then revoked, then only the newest works, and then none', async () => {
    const rotated = await t.http
      .post(`/api/admin/directories/${directoryId}/token`)
      .set(bearer(platformToken))
      .expect(200);
    assert.notEqual(rotated.body.token, token);
    assert.equal(await t.container.services.directories.verifyToken(token), null);
    assert.ok(await t.container.services.directories.verifyToken(rotated.body.token));
    const revoked = await t.http
      .delete(`/api/admin/directories/${directoryId}/token`)
      .set(bearer(platformToken))
      .expect(200);
    assert.equal(revoked.body.tokenPrefix, null);
    assert.equal(await t.container.services.directories.verifyToken(rotated.body.token), null);
  });
});
