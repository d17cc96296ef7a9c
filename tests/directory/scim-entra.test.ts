// SCIM as Microsoft Entra ID provisions: the user sequence it runs (look up by userName, create,
// PATCH in its dialect, disable with "False", delete), the group sequence (create, look up with
// excludedAttributes=members, add and remove members, rename, delete), discovery, and a disabled
// person's existing token refused at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuditEntry } from '../../src/modules/audit/audit-entry.model.ts';
import { Member } from '../../src/modules/members/member.model.ts';
import { User } from '../../src/modules/users/user.model.ts';
import { bearer, tokenFor } from '../factories/index.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import {
  entraAddMembers,
  entraDisable,
  entraGroup,
  entraRemoveMembers,
  entraRenameGroup,
  entraUpdate,
  entraUser,
} from './fixtures/entra-requests.ts';
import {
  addDirectory,
  expectScim,
  expectScimError,
  filter,
  LIST_SCHEMA,
  type ScimClient,
  type ScimDirectory,
  scimClient,
} from './fixtures/scim-client.ts';

const BASE = 'http://guildhall.test';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

describe('SCIM as Entra ID sends it', () => {
  let t: TestApp;
  let directory: ScimDirectory;
  let scim: ScimClient;

  before(async () => {
    t = await startTestApp({ env: { BASE_URL: BASE } });
    directory = await addDirectory(t);
    scim = scimClient(t, directory.token);
  });
  after(() => t.close());

  it('when Entra provisions a user, then lookup, create, PATCH, disable and delete follow its sequence', async () => {
    const user = entraUser('entra.example');
    const lookup = expectScim(await scim.get(`/Users?${filter(`userName eq "${user.userName}"`)}`), 200);
    assert.deepEqual(lookup, {
      schemas: [LIST_SCHEMA],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });

    const createdRes = await scim.post('/Users', user);
    const created = expectScim(createdRes, 201);
    assert.equal(createdRes.headers.location, `${BASE}/scim/v2/Users/${created.id}`);
    assert.equal(createdRes.headers.etag, created.meta.version);
    assert.equal(created.userName, user.userName);
    assert.equal(created.externalId, user.externalId);
    assert.equal(created.active, true);
    assert.deepEqual(created.groups, []);
    assert.equal(created.meta.resourceType, 'User');
    assert.equal(created.meta.location, createdRes.headers.location);
    const account = await User.findOne({ where: { email: user.userName.toLowerCase() } });
    assert.ok(account, 'an account of the organization');
    assert.equal(account.organizationId, directory.organizationId);
    assert.equal(account.role, 'ROLE_MEMBER');

    const found = expectScim(await scim.get(`/Users?${filter(`userName eq "${user.userName.toUpperCase()}"`)}`), 200);
    assert.equal(found.totalResults, 1, 'userName compares case-insensitively');
    assert.equal(found.Resources[0].id, created.id);

    const newEmail = `moved.${user.userName}`.toLowerCase();
    const patched = expectScim(await scim.patch(`/Users/${created.id}`, entraUpdate(newEmail)), 200);
    assert.equal(patched.name.familyName, 'Byron');
    assert.equal(patched.name.givenName, 'Ada');
    assert.equal(patched.title, 'Treasurer');
    assert.equal(patched[ENTERPRISE].department, 'Finance');
    assert.deepEqual(patched.schemas, ['urn:ietf:params:scim:schemas:core:2.0:User', ENTERPRISE]);
    assert.deepEqual(
      patched.emails.map((e: { value: string }) => e.value),
      [newEmail],
    );
    assert.notEqual(patched.meta.version, created.meta.version);
    await account.reload();
    assert.equal(account.email, newEmail);
    assert.equal(account.lastName, 'Byron');
    assert.equal(account.department, 'Finance');
    assert.equal(account.jobTitle, 'Treasurer');
    const byEmail = expectScim(
      await scim.get(`/Users?${filter(`emails[type eq "work"].value eq "${newEmail}"`)}`),
      200,
    );
    assert.equal(byEmail.totalResults, 1);
    const byDepartment = expectScim(await scim.get(`/Users?${filter(`${ENTERPRISE}:department eq "finance"`)}`), 200);
    assert.equal(byDepartment.totalResults, 1);

    const disabled = expectScim(await scim.patch(`/Users/${created.id}`, entraDisable), 200);
    assert.equal(disabled.active, false);
    await account.reload();
    assert.equal(account.status, 'inactive');

    const deleted = await scim.delete(`/Users/${created.id}`);
    assert.equal(deleted.status, 204);
    expectScimError(await scim.get(`/Users/${created.id}`), 404);
    expectScimError(await scim.delete(`/Users/${created.id}`), 404);
    const audit = await AuditEntry.findAll({ where: { targetId: account.id } });
    assert.ok(audit.some((entry) => entry.action === 'directory.user_deactivated'));
  });

  it('when the directory sets hardDelete and Entra deletes a person, then the account is deleted and its member record cancelled', async () => {
    const hard = await addDirectory(t, { name: 'Entra (hard delete)', hardDelete: true });
    const client = scimClient(t, hard.token);
    const created = expectScim(await client.post('/Users', entraUser('entra-hard.example')), 201);
    const account = (await User.findOne({ where: { email: created.userName.toLowerCase() } }))!;
    const member = await Member.findOne({ where: { organizationId: hard.organizationId, userId: account.id } });
    assert.equal(member?.status, 'active', 'provisioning linked a member record');

    assert.equal((await client.delete(`/Users/${created.id}`)).status, 204);
    expectScimError(await client.get(`/Users/${created.id}`), 404);
    assert.equal(await User.findByPk(account.id), null, 'the account is deleted');
    assert.ok((await User.findByPk(account.id, { paranoid: false }))?.deletedAt, 'soft-deleted: its history stays');
    await member!.reload();
    assert.equal(member!.status, 'cancelled');
    const audit = await AuditEntry.findAll({ where: { targetId: account.id } });
    assert.ok(audit.some((entry) => entry.action === 'directory.user_deleted'));
  });

  it('when Entra disables a person, then the token they already hold is refused at once', async () => {
    const created = expectScim(await scim.post('/Users', entraUser('entra.example')), 201);
    const account = (await User.findOne({ where: { email: created.userName.toLowerCase() } }))!;
    const token = await tokenFor(t, account);
    assert.equal((await t.http.get('/api/auth/me').set(bearer(token))).status, 200);
    const started = Date.now();
    expectScim(await scim.patch(`/Users/${created.id}`, entraDisable), 200);
    const me = await t.http.get('/api/auth/me').set(bearer(token));
    assert.ok([401, 403].includes(me.status), `refused, got ${me.status}`);
    assert.ok(Date.now() - started < 2000, 'within the 2-second bound');
  });

  it('when Entra provisions a group, then members are added, removed and the group renamed and deleted', async () => {
    const [ada, grace] = await Promise.all([
      scim.post('/Users', entraUser('entra.example')).then((r) => expectScim(r, 201)),
      scim.post('/Users', entraUser('entra.example')).then((r) => expectScim(r, 201)),
    ]);
    const body = entraGroup('Volunteers');
    const lookup = await scim.get(`/Groups?excludedAttributes=members&${filter('displayName eq "Volunteers"')}`);
    assert.equal(expectScim(lookup, 200).totalResults, 0);
    const groupRes = await scim.post('/Groups', body);
    const group = expectScim(groupRes, 201);
    assert.equal(group.displayName, 'Volunteers');
    assert.equal(group.externalId, body.externalId);
    assert.deepEqual(group.members, []);
    assert.equal(groupRes.headers.location, `${BASE}/scim/v2/Groups/${group.id}`);

    const added = await scim.patch(`/Groups/${group.id}`, entraAddMembers(ada!.id, grace!.id));
    assert.equal(added.status, 204);
    const read = expectScim(await scim.get(`/Groups/${group.id}`), 200);
    assert.deepEqual(read.members.map((m: { value: string }) => m.value).sort(), [ada!.id, grace!.id].sort());
    const slim = expectScim(await scim.get(`/Groups/${group.id}?excludedAttributes=members`), 200);
    assert.equal(slim.members, undefined);
    assert.equal(slim.displayName, 'Volunteers');
    const listed = expectScim(
      await scim.get(`/Groups?excludedAttributes=members&${filter('displayName eq "volunteers"')}`),
      200,
    );
    assert.equal(listed.totalResults, 1);
    assert.equal(listed.Resources[0].members, undefined);
    const ofMember = expectScim(await scim.get(`/Groups?${filter(`members.value eq "${ada!.id}"`)}`), 200);
    assert.deepEqual(
      ofMember.Resources.map((g: { id: string }) => g.id),
      [group.id],
    );
    const userRead = expectScim(await scim.get(`/Users/${ada!.id}`), 200);
    assert.deepEqual(
      userRead.groups.map((g: { value: string; display: string }) => [g.value, g.display]),
      [[group.id, 'Volunteers']],
    );

    assert.equal((await scim.patch(`/Groups/${group.id}`, entraRemoveMembers(ada!.id))).status, 204);
    assert.equal((await scim.patch(`/Groups/${group.id}`, entraRenameGroup('Volunteers 2027'))).status, 204);
    const after = expectScim(await scim.get(`/Groups/${group.id}`), 200);
    assert.equal(after.displayName, 'Volunteers 2027');
    assert.deepEqual(
      after.members.map((m: { value: string }) => m.value),
      [grace!.id],
    );

    assert.equal((await scim.delete(`/Groups/${group.id}`)).status, 204);
    expectScimError(await scim.get(`/Groups/${group.id}`), 404);
  });

  it('when Entra reads the discovery endpoints, then they say what this server does', async () => {
    const config = expectScim(await scim.get('/ServiceProviderConfig'), 200);
    assert.equal(config.patch.supported, true);
    assert.deepEqual(config.filter, { supported: true, maxResults: 200 });
    assert.equal(config.bulk.supported, false);
    assert.equal(config.etag.supported, true);
    assert.equal(config.sort.supported, false);
    assert.equal(config.changePassword.supported, false);
    assert.equal(config.authenticationSchemes[0].type, 'oauthbearertoken');
    const types = expectScim(await scim.get('/ResourceTypes'), 200);
    assert.deepEqual(
      types.Resources.map((r: { endpoint: string }) => r.endpoint),
      ['/Users', '/Groups'],
    );
    const user = expectScim(await scim.get('/ResourceTypes/User'), 200);
    assert.equal(user.schemaExtensions[0].schema, ENTERPRISE);
    const schemas = expectScim(await scim.get('/Schemas'), 200);
    assert.equal(schemas.totalResults, 3);
    const core = expectScim(await scim.get('/Schemas/urn:ietf:params:scim:schemas:core:2.0:User'), 200);
    assert.ok(core.attributes.some((a: { name: string }) => a.name === 'userName'));
    expectScimError(await scim.get('/Schemas/urn:example:nothing'), 404);
  });
});
