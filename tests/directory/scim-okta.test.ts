// SCIM as Okta provisions: look up, create (its password never kept), PUT of the whole user,
// deactivation and reactivation as a no-path {"active": …}, and Group Push (create with members,
// rename repeating the id, add, remove by members[value eq "…"], PUT, delete).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { User } from '../../src/modules/users/user.model.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import {
  oktaAddMembers,
  oktaDeactivate,
  oktaGroup,
  oktaReactivate,
  oktaRemoveMember,
  oktaRenameGroup,
  oktaUser,
} from './fixtures/okta-requests.ts';
import { addDirectory, expectScim, filter, type ScimClient, scimClient } from './fixtures/scim-client.ts';

describe('SCIM as Okta sends it', () => {
  let t: TestApp;
  let scim: ScimClient;

  before(async () => {
    t = await startTestApp();
    scim = scimClient(t, (await addDirectory(t, { name: 'Okta' })).token);
  });
  after(() => t.close());

  it('when Okta provisions a user, then create, PUT, deactivate and reactivate keep the account in step', async () => {
    const body = oktaUser('okta.example');
    const lookup = await scim.get(`/Users?${filter(`userName eq "${body.userName}"`)}&startIndex=1&count=100`);
    assert.equal(expectScim(lookup, 200).totalResults, 0);
    const created = expectScim(await scim.post('/Users', body), 201);
    assert.equal(created.password, undefined, 'never returned');
    assert.equal(created.displayName, 'Test User');
    assert.equal(created.locale, 'en-US');
    const account = (await User.findOne({ where: { email: body.userName } }))!;
    assert.equal(account.firstName, 'Test');

    const got = expectScim(await scim.get(`/Users/${created.id}`), 200);
    const replaced = expectScim(
      await scim.put(`/Users/${created.id}`, {
        ...got,
        name: { givenName: 'Another', familyName: 'User' },
        displayName: 'Another User',
      }),
      200,
    );
    assert.equal(replaced.name.givenName, 'Another');
    assert.equal(replaced.id, created.id);
    await account.reload();
    assert.equal(account.firstName, 'Another');

    const off = expectScim(await scim.patch(`/Users/${created.id}`, oktaDeactivate), 200);
    assert.equal(off.active, false);
    await account.reload();
    assert.equal(account.status, 'inactive');
    const inactive = expectScim(await scim.get(`/Users?${filter('active eq false')}`), 200);
    assert.deepEqual(
      inactive.Resources.map((u: { id: string }) => u.id),
      [created.id],
    );

    const on = expectScim(await scim.patch(`/Users/${created.id}`, oktaReactivate), 200);
    assert.equal(on.active, true);
    await account.reload();
    assert.equal(account.status, 'active');
  });

  it('when Okta pushes a group, then its members follow the adds and removals it sends', async () => {
    const users = await Promise.all(
      [1, 2, 3].map(async () => expectScim(await scim.post('/Users', oktaUser('okta.example')), 201)),
    );
    const [a, b, c] = users.map((u) => ({ value: u.id as string, display: u.userName as string }));
    const group = expectScim(await scim.post('/Groups', oktaGroup('Test SCIMv2', [a!])), 201);
    assert.deepEqual(
      group.members.map((m: { value: string }) => m.value),
      [a!.value],
    );
    assert.equal(group.members[0].display, a!.display);

    assert.equal((await scim.patch(`/Groups/${group.id}`, oktaRenameGroup(group.id, 'Board'))).status, 204);
    assert.equal((await scim.patch(`/Groups/${group.id}`, oktaAddMembers(b!, c!))).status, 204);
    assert.equal((await scim.patch(`/Groups/${group.id}`, oktaRemoveMember(a!.value))).status, 204);
    // removing someone no longer there is not an error: Okta retries what it is unsure of
    assert.equal((await scim.patch(`/Groups/${group.id}`, oktaRemoveMember(a!.value))).status, 204);
    const read = expectScim(await scim.get(`/Groups/${group.id}`), 200);
    assert.equal(read.displayName, 'Board');
    assert.deepEqual(read.members.map((m: { value: string }) => m.value).sort(), [b!.value, c!.value].sort());

    const put = expectScim(await scim.put(`/Groups/${group.id}`, { ...oktaGroup('Board', [a!]), id: group.id }), 200);
    assert.deepEqual(
      put.members.map((m: { value: string }) => m.value),
      [a!.value],
    );
    const renamedOnly = expectScim(
      await scim.put(`/Groups/${group.id}`, { schemas: group.schemas, displayName: 'The Board' }),
      200,
    );
    assert.equal(renamedOnly.displayName, 'The Board');
    assert.deepEqual(
      renamedOnly.members.map((m: { value: string }) => m.value),
      [a!.value],
      'members kept',
    );

    assert.equal((await scim.delete(`/Groups/${group.id}`)).status, 204);
    assert.equal((await scim.get(`/Groups/${group.id}`)).status, 404);
  });
});
