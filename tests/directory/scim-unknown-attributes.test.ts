// Attributes the User schema does not define (RFC 7643 §4.1 and the enterprise extension): a client's
// `organizationId`, `role`, a custom extension of its own, unknown sub-attributes. POST, PUT and PATCH
// ignore them, as Entra ID and Okta expect of a server: the answer is the resource as stored, without
// them, the stored resource does not hold them, and they never reach the account (its organization is
// the directory's, its role the group mapping's). SCIM's own `roles` attribute is kept as data, never
// applied.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { User } from '../../src/modules/users/user.model.ts';
import { buildOrganization } from '../factories/index.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import {
  addDirectory,
  expectScim,
  patchOp,
  type ScimClient,
  type ScimDirectory,
  scimClient,
} from './fixtures/scim-client.ts';

const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const CUSTOM = 'urn:ietf:params:scim:schemas:extension:CustomExtensionName:2.0:User';
/** Top-level names a User answer may carry: the core schema's, the extension's URN, ours. */
const USER_ATTRIBUTES = new Set([
  ...['schemas', 'id', 'meta', 'groups', 'externalId', 'userName', 'name', 'displayName', 'nickName'],
  ...['profileUrl', 'title', 'userType', 'preferredLanguage', 'locale', 'timezone', 'active', 'emails'],
  ...['phoneNumbers', 'ims', 'photos', 'addresses', 'entitlements', 'roles', 'x509Certificates', ENTERPRISE],
]);

describe('SCIM attributes the User schema does not define', () => {
  let t: TestApp;
  let directory: ScimDirectory;
  let scim: ScimClient;
  let otherOrganizationId: string;

  before(async () => {
    t = await startTestApp();
    directory = await addDirectory(t);
    scim = scimClient(t, directory.token);
    otherOrganizationId = (await buildOrganization()).id;
  });
  after(() => t.close());

  /** A User as Entra ID sends it, plus what no schema of ours defines. */
  const withExtras = (userName: string, givenName: string) => ({
    schemas: [USER_SCHEMA, ENTERPRISE, CUSTOM],
    userName,
    externalId: `ext-${userName}`,
    name: { givenName, familyName: 'Hopper', nickname: 'amazing' },
    emails: [{ type: 'work', value: userName, primary: true, organizationId: otherOrganizationId }],
    active: true,
    roles: [{ value: 'ROLE_PLATFORM_ADMIN', primary: 'True' }],
    organizationId: otherOrganizationId,
    role: 'ROLE_PLATFORM_ADMIN',
    Role: 'ROLE_CLIENT_ADMIN',
    directoryId: '00000000-0000-4000-8000-000000000000',
    [ENTERPRISE]: { department: 'Navy', role: 'ROLE_CLIENT_ADMIN' },
    [CUSTOM]: { organizationId: otherOrganizationId },
  });

  /** The answer has the schemas' attributes only, none of the extras, and what was sent of them. */
  function assertSchemaOnly(body: Record<string, any>, givenName: string): void {
    const unknown = Object.keys(body).filter((key) => !USER_ATTRIBUTES.has(key));
    assert.deepEqual(unknown, [], `attributes outside the User schema: ${unknown.join(', ')}`);
    assert.deepEqual(body.schemas, [USER_SCHEMA, ENTERPRISE]);
    assert.deepEqual(body.name, { givenName, familyName: 'Hopper' });
    assert.deepEqual(body.emails, [{ type: 'work', value: body.userName, primary: true }]);
    assert.deepEqual(body[ENTERPRISE], { department: 'Navy' });
    assert.doesNotMatch(JSON.stringify(body), new RegExp(otherOrganizationId));
  }

  /** The account is the directory's organization's, a member (no group mapped), and the stored resource clean. */
  async function assertNothingApplied(id: string, email: string): Promise<void> {
    const account = (await User.findOne({ where: { email } }))!;
    assert.equal(account.organizationId, directory.organizationId);
    assert.equal(account.role, 'ROLE_MEMBER');
    assert.equal(account.directoryId, directory.id);
    assert.equal(account.department, 'Navy');
    const [[row]] = (await t.db.sequelize.query(
      'SELECT organization_id AS "organizationId", resource FROM directory_users WHERE id = $1',
      { bind: [id] },
    )) as [Array<{ organizationId: string; resource: Record<string, unknown> }>, unknown];
    assert.equal(row!.organizationId, directory.organizationId);
    const stored = JSON.stringify(row!.resource);
    for (const extra of ['organizationId', '"role"', '"Role"', 'directoryId', 'nickname', CUSTOM])
      assert.ok(!stored.includes(extra), `the stored resource holds ${extra}: ${stored}`);
    assert.deepEqual(row!.resource.roles, [{ value: 'ROLE_PLATFORM_ADMIN', primary: 'True' }]);
  }

  it('when a POST carries attributes the schema does not define, then they are ignored: not answered, stored or applied', async () => {
    const created = expectScim(await scim.post('/Users', withExtras('grace@entra.test', 'Grace')), 201);
    assertSchemaOnly(created, 'Grace');
    await assertNothingApplied(created.id, 'grace@entra.test');
    assertSchemaOnly(expectScim(await scim.get(`/Users/${created.id}`), 200), 'Grace');
  });

  it('when a PUT carries them, then they are ignored as well', async () => {
    const created = expectScim(await scim.post('/Users', withExtras('put.grace@entra.test', 'Grace')), 201);
    const replaced = expectScim(
      await scim.put(`/Users/${created.id}`, withExtras('put.grace@entra.test', 'Admiral')),
      200,
    );
    assertSchemaOnly(replaced, 'Admiral');
    assert.notEqual(replaced.meta.version, created.meta.version, 'the replacement was written');
    await assertNothingApplied(created.id, 'put.grace@entra.test');
    assert.equal((await User.findOne({ where: { email: 'put.grace@entra.test' } }))!.firstName, 'Admiral');
  });

  it('when a PATCH names them (a path, or a no-path value), then they are ignored and the rest applied', async () => {
    const created = expectScim(await scim.post('/Users', withExtras('patch.grace@entra.test', 'Grace')), 201);
    const patched = expectScim(
      await scim.patch(
        `/Users/${created.id}`,
        patchOp(
          { op: 'Replace', path: 'role', value: 'ROLE_CLIENT_ADMIN' },
          { op: 'Add', path: 'organizationId', value: otherOrganizationId },
          { op: 'replace', path: `${ENTERPRISE}:role`, value: 'ROLE_PLATFORM_ADMIN' },
          { op: 'replace', path: 'name.nickname', value: 'amazing' },
          { op: 'replace', value: { role: 'ROLE_PLATFORM_ADMIN', organizationId: otherOrganizationId } },
          { op: 'replace', value: { 'name.givenName': 'Rear Admiral' } },
        ),
      ),
      200,
    );
    assertSchemaOnly(patched, 'Rear Admiral');
    await assertNothingApplied(created.id, 'patch.grace@entra.test');
    assert.equal((await User.findOne({ where: { email: 'patch.grace@entra.test' } }))!.firstName, 'Rear Admiral');
  });
});
