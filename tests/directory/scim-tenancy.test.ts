// What a directory may touch: its own organization's people only. Uniqueness answers the same 409 for
// a duplicate and for another organization's address (nothing revealed, nothing changed); another
// directory's token reads and changes none of this one's users or groups (404); a revoked token is
// refused; groups grant roles by the mapping, the highest winning, never platform admin.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Organization } from '../../src/modules/organizations/organization.model.ts';
import { User } from '../../src/modules/users/user.model.ts';
import { bearer, buildOrganization, buildUser, mfaVerifiedTokenFor } from '../factories/index.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { entraAddMembers, entraGroup, entraRemoveMembers, entraUser } from './fixtures/entra-requests.ts';
import { oktaRemoveMember } from './fixtures/okta-requests.ts';
import {
  addDirectory,
  expectScim,
  expectScimError,
  filter,
  patchOp,
  type ScimClient,
  type ScimDirectory,
  scimClient,
} from './fixtures/scim-client.ts';

const NOT_AVAILABLE = /userName or e-mail address is not available/;

describe('SCIM tenancy', () => {
  let t: TestApp;
  let first: ScimDirectory;
  let scim: ScimClient;

  before(async () => {
    t = await startTestApp();
    first = await addDirectory(t);
    scim = scimClient(t, first.token);
  });
  after(() => t.close());

  it('when a userName or an address is taken, here or in another organization, then both answer the same 409', async () => {
    const body = entraUser('unique.example');
    expectScim(await scim.post('/Users', body), 201);
    const twice = await scim.post('/Users', { ...body, externalId: 'another' });
    assert.match(expectScimError(twice, 409, 'uniqueness').detail, NOT_AVAILABLE);

    const outsider = await buildUser({ role: 'ROLE_CLIENT_USER', email: 'taken@elsewhere.example', firstName: 'Kept' });
    const before = outsider.toJSON();
    const theirs = await scim.post(
      '/Users',
      entraUser('x.example', { userName: 'taken@elsewhere.example', emails: [] }),
    );
    assert.match(expectScimError(theirs, 409, 'uniqueness').detail, NOT_AVAILABLE);
    const viaEmail = await scim.post(
      '/Users',
      entraUser('x.example', { emails: [{ type: 'work', value: 'TAKEN@elsewhere.example' }] }),
    );
    assert.equal(expectScimError(viaEmail, 409, 'uniqueness').detail, theirs.body.detail);
    const mine = expectScim(await scim.post('/Users', entraUser('unique.example')), 201);
    const moved = await scim.patch(
      `/Users/${mine.id}`,
      patchOp({ op: 'Replace', path: 'emails[type eq "work"].value', value: 'taken@elsewhere.example' }),
    );
    assert.equal(expectScimError(moved, 409, 'uniqueness').detail, theirs.body.detail);
    await outsider.reload();
    assert.deepEqual(outsider.toJSON(), before, "the other organization's account is untouched");
  });

  it("when another directory's token names this directory's users and groups, then they do not exist for it", async () => {
    const user = expectScim(await scim.post('/Users', entraUser('tenant.example')), 201);
    const group = expectScim(await scim.post('/Groups', entraGroup('Tenant group')), 201);
    const other = scimClient(t, (await addDirectory(t)).token);
    const ownUser = expectScim(await other.post('/Users', entraUser('other.example')), 201);
    expectScimError(await other.get(`/Users/${user.id}`), 404);
    expectScimError(await other.put(`/Users/${user.id}`, { ...user, title: 'Taken over' }), 404);
    expectScimError(await other.patch(`/Users/${user.id}`, patchOp({ op: 'replace', value: { active: false } })), 404);
    expectScimError(await other.delete(`/Users/${user.id}`), 404);
    expectScimError(await other.get(`/Groups/${group.id}`), 404);
    expectScimError(await other.put(`/Groups/${group.id}`, { displayName: 'Taken over' }), 404);
    expectScimError(await other.patch(`/Groups/${group.id}`, entraAddMembers(ownUser.id)), 404);
    expectScimError(await other.delete(`/Groups/${group.id}`), 404);
    const listed = expectScim(await other.get(`/Users?${filter(`id eq "${user.id}" or userName pr`)}`), 200);
    assert.deepEqual(
      listed.Resources.map((u: { id: string }) => u.id),
      [ownUser.id],
    );
    assert.equal(expectScim(await other.get('/Groups'), 200).totalResults, 0);
    // a group of the other directory cannot take this directory's user as a member
    const theirGroup = expectScim(await other.post('/Groups', entraGroup('Theirs')), 201);
    expectScimError(await other.patch(`/Groups/${theirGroup.id}`, entraAddMembers(user.id)), 400, 'invalidValue');
    expectScimError(
      await other.post('/Groups', { displayName: 'Sneaky', members: [{ value: user.id }] }),
      400,
      'invalidValue',
    );

    const still = expectScim(await scim.get(`/Users/${user.id}`), 200);
    assert.equal(still.active, true);
    assert.equal(still.meta.version, user.meta.version);
    assert.equal(expectScim(await scim.get(`/Groups/${group.id}`), 200).displayName, 'Tenant group');
  });

  it('when the token is revoked or missing, then every request is refused with 401', async () => {
    const directory = await addDirectory(t);
    const client = scimClient(t, directory.token);
    expectScim(await client.get('/Users'), 200);
    const platformToken = await mfaVerifiedTokenFor(t, await buildUser({ role: 'ROLE_PLATFORM_ADMIN' }));
    const revoked = await t.http.delete(`/api/admin/directories/${directory.id}/token`).set(bearer(platformToken));
    assert.ok(revoked.status < 300, `revoked: ${revoked.status}`);
    expectScimError(await client.get('/Users'), 401);
    expectScimError(await client.post('/Users', entraUser('revoked.example')), 401);
    expectScimError(await t.http.get('/scim/v2/Users'), 401);
    expectScimError(await t.http.get('/scim/v2/Users').set('Authorization', 'Bearer scim_guessed'), 401);
  });

  it("when the directory's organization is suspended, then provisioning is refused with 403 and nothing is written", async () => {
    const directory = await addDirectory(t);
    const client = scimClient(t, directory.token);
    await Organization.update(
      { status: 'suspended', suspendedAt: new Date() },
      { where: { id: directory.organizationId } },
    );
    const refused = expectScimError(await client.get('/Users'), 403);
    assert.match(refused.detail, /organization is suspended/);
    expectScimError(await client.post('/Users', entraUser('suspended.example')), 403);
    assert.equal(await User.count({ where: { organizationId: directory.organizationId } }), 0);

    await Organization.update({ status: 'active', suspendedAt: null }, { where: { id: directory.organizationId } });
    expectScim(await client.post('/Users', entraUser('resumed.example')), 201);
  });

  it('when people join and leave groups, then the highest mapped role wins and never platform admin', async () => {
    const organizationId = (await buildOrganization()).id;
    const client = scimClient(t, (await addDirectory(t, { organizationId })).token);
    const person = expectScim(await client.post('/Users', entraUser('roles.example')), 201);
    const account = (await User.findOne({ where: { email: person.userName.toLowerCase() } }))!;
    assert.equal(account.role, 'ROLE_MEMBER');
    const admins = expectScim(await client.post('/Groups', entraGroup('Admins')), 201);
    const staff = expectScim(await client.post('/Groups', entraGroup('staff')), 201);
    await client.patch(`/Groups/${staff.id}`, entraAddMembers(person.id));
    await account.reload();
    assert.equal(account.role, 'ROLE_CLIENT_USER');
    await client.patch(`/Groups/${admins.id}`, entraAddMembers(person.id));
    await account.reload();
    assert.equal(account.role, 'ROLE_CLIENT_ADMIN', 'admins and staff: the highest wins');
    assert.equal((await client.patch(`/Groups/${admins.id}`, oktaRemoveMember(person.id))).status, 204);
    await account.reload();
    assert.equal(account.role, 'ROLE_CLIENT_USER');
    const platform = expectScim(await client.post('/Groups', entraGroup('ROLE_PLATFORM_ADMIN')), 201);
    await client.patch(`/Groups/${platform.id}`, entraAddMembers(person.id));
    await client.patch(`/Groups/${staff.id}`, entraRemoveMembers(person.id));
    await account.reload();
    assert.equal(account.role, 'ROLE_MEMBER', 'an unmapped group grants nothing, whatever its name');
    assert.equal(account.organizationId, organizationId);
  });
});
