// The spec's SSO flow end to end: platform settings for the identity service, a brokered connection
// configured by a client admin, GET /auth/sso → identity service → GET /auth/callback/idp → one-time
// code → token. The identity service is a loopback stand-in driven through the real @workos-inc/node.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuditEntry } from '../../src/modules/audit/audit-entry.model.ts';
import { Member } from '../../src/modules/members/member.model.ts';
import { User } from '../../src/modules/users/user.model.ts';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { buildMember } from '../factories/records.ts';
import { addDirectory, expectScim, scimClient } from '../directory/fixtures/scim-client.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { type IdentityServiceStandIn, startIdentityServiceStandIn } from '../support/identity-service-stand-in.ts';

const BASE = 'http://guildhall.test';

describe('SSO through the identity service', () => {
  let t: TestApp;
  let idp: IdentityServiceStandIn;
  let platformToken: string;
  let adminToken: string;
  let organizationId: string;
  let slug: string;
  let connectionId: string;

  /** Follows the browser: our /auth/sso → the identity service's authorize → back to our callback. */
  async function signIn(query: string): Promise<{ status: number; location?: string; text: string }> {
    const start = await t.http.get(`/auth/sso?${query}`);
    if (start.status !== 302) return { status: start.status, text: start.text };
    assert.ok(start.headers.location!.startsWith(idp.url), 'to the identity service');
    const authorize = await fetch(start.headers.location!, { redirect: 'manual' });
    const back = new URL(authorize.headers.get('location')!);
    assert.equal(back.origin, BASE);
    const callback = await t.http.get(`${back.pathname}${back.search}`);
    return { status: callback.status, location: callback.headers.location, text: callback.text };
  }

  function exchange(location: string) {
    const code = new URL(location).searchParams.get('sso_code')!;
    return t.http.post('/api/auth/sso/token').send({ code });
  }

  before(async () => {
    idp = await startIdentityServiceStandIn();
    t = await startTestApp({ env: { IDENTITY_SERVICE_API_URL: idp.url, BASE_URL: BASE } });
    platformToken = await tokenFor(t, await buildUser({ role: 'ROLE_PLATFORM_ADMIN' }));
    const organization = await buildOrganization();
    organizationId = organization.id;
    slug = organization.slug;
    adminToken = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
  });
  after(async () => {
    await t.close();
    await idp.close();
  });

  it('when a platform admin saves the identity service settings, then secrets are sealed and only their last four characters are shown', async () => {
    const wrong = expectProblem(
      await t.http
        .put('/api/admin/integrations/identity-service')
        .set(bearer(platformToken))
        .send({
          apiKey: 'pk_live_1234567890',
          clientId: idp.clientId,
          redirectUri: `${BASE}/auth/callback/idp`,
          webhookSecret: 'whsec_0123456789abcdef',
        }),
      400,
      'validation_failed',
    );
    assert.equal(wrong.errors[0].field, 'apiKey');
    const saved = await t.http
      .put('/api/admin/integrations/identity-service')
      .set(bearer(platformToken))
      .send({
        apiKey: idp.apiKey,
        clientId: idp.clientId,
        redirectUri: `${BASE}/auth/callback/idp`,
        webhookSecret: 'whsec_0123456789abcdef',
      })
      .expect(200);
    assert.equal(saved.body.configured, true);
    assert.equal(saved.body.apiKeyLast4, idp.apiKey.slice(-4));
    assert.ok(!JSON.stringify(saved.body).includes(idp.apiKey));
    const read = await t.http.get('/api/admin/integrations/identity-service').set(bearer(platformToken)).expect(200);
    assert.deepEqual(read.body, saved.body);
    // a change without the secrets keeps them
    await t.http
      .put('/api/admin/integrations/identity-service')
      .set(bearer(platformToken))
      .send({ clientId: idp.clientId, defaultConnection: 'conn_default' })
      .expect(200);
    const [row] = (await t.db.sequelize.query('SELECT api_key_sealed FROM identity_service_settings'))[0] as Array<{
      api_key_sealed: string;
    }>;
    assert.ok(row && !row.api_key_sealed.includes(idp.apiKey), 'sealed at rest');
    const audit = await AuditEntry.findAll({ where: { action: 'identity_service.settings_changed' } });
    assert.equal(audit.length, 2);
    assert.ok(!JSON.stringify(audit.map((a) => a.get())).includes(idp.apiKey), 'never a secret in the audit trail');
    // client admins may not see or change them
    expectProblem(
      await t.http.get('/api/admin/integrations/identity-service').set(bearer(adminToken)),
      403,
      'forbidden',
    );
  });

  it('when a client admin creates, tests and enables a brokered connection, then it is active and announced', async () => {
    const created = await t.http
      .post('/api/sso/connections')
      .set(bearer(adminToken))
      .send({
        name: 'Okta',
        protocol: 'identity_service',
        settings: { connection: 'conn_okta' },
        domains: ['Assoc.Test'],
        groupRoles: [
          { group: 'Guildhall Staff', role: 'ROLE_CLIENT_USER' },
          { group: 'Guildhall Admins', role: 'ROLE_CLIENT_ADMIN' },
        ],
      })
      .expect(201);
    connectionId = created.body.id;
    assert.equal(created.body.status, 'draft');
    assert.deepEqual(created.body.domains, ['assoc.test']);
    assert.equal(created.headers.location, `/api/auth/sso/connections/${connectionId}`);
    expectProblem(
      await t.http.post(`/api/sso/connections/${connectionId}/enable`).set(bearer(adminToken)),
      400,
      'invalid_connection',
    );
    const tested = await t.http.post(`/api/sso/connections/${connectionId}/test`).set(bearer(adminToken)).expect(200);
    assert.equal(tested.body.ok, true, tested.body.detail);
    assert.match(tested.body.detail, /active at the identity service/);
    const enabled = await t.http
      .post(`/api/sso/connections/${connectionId}/enable`)
      .set(bearer(adminToken))
      .expect(200);
    assert.equal(enabled.body.status, 'active');
    const listed = await t.http.post('/api/auth/sso/connections').set(bearer(adminToken)).send({}).expect(200);
    assert.deepEqual(
      listed.body.data.map((c: { id: string }) => c.id),
      [connectionId],
    );
    const one = await t.http.post(`/api/auth/sso/connections/${connectionId}`).set(bearer(adminToken)).expect(200);
    assert.equal(one.body.lastTest.ok, true);
    const [events] = await t.db.sequelize.query("SELECT data FROM domain_events WHERE type = 'connection.activated'");
    assert.equal((events as Array<{ data: { id: string } }>)[0]?.data.id, connectionId);
  });

  it('when another organization names the same identity-service connection, then it is 409 and nothing is saved', async () => {
    const other = await buildOrganization();
    const otherAdmin = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: other.id }));
    const taken = expectProblem(
      await t.http
        .post('/api/sso/connections')
        .set(bearer(otherAdmin))
        .send({ name: 'Not ours', protocol: 'identity_service', settings: { connection: 'conn_okta' } }),
      409,
      'conflict',
    );
    assert.deepEqual(taken.errors, [{ field: 'settings.connection', message: 'is used by another organization' }]);
    const own = await t.http
      .post('/api/sso/connections')
      .set(bearer(otherAdmin))
      .send({ name: 'Ours', protocol: 'identity_service', settings: { connection: 'conn_theirs' } })
      .expect(201);
    expectProblem(
      await t.http
        .patch(`/api/sso/connections/${own.body.id}`)
        .set(bearer(otherAdmin))
        .send({ settings: { connection: 'conn_okta' } }),
      409,
      'conflict',
    );
    const kept = await t.http.post(`/api/auth/sso/connections/${own.body.id}`).set(bearer(otherAdmin)).expect(200);
    assert.equal(kept.body.settings.connection, 'conn_theirs');
  });

  it('when a person signs in through the identity service, then the key stays on the backend and the browser gets a one-time code, not a token', async () => {
    idp.nextLogin(
      {
        email: 'Sam@Assoc.test',
        first_name: 'Sam',
        last_name: 'Staff',
        groups: ['Guildhall Staff'],
        raw_attributes: { department: 'Events', job_title: 'Coordinator' },
      },
      { connection: 'conn_okta' },
    );
    const start = await t.http.get(`/auth/sso?organization=${slug}`).expect(302);
    assert.ok(!start.headers.location!.includes(idp.apiKey), 'no key in the redirect');
    assert.equal(start.headers['cache-control'], 'no-store');
    const authorize = await fetch(start.headers.location!, { redirect: 'manual' });
    const back = new URL(authorize.headers.get('location')!);
    const callback = await t.http.get(`${back.pathname}${back.search}`).expect(302);
    const landing = new URL(callback.headers.location!);
    assert.ok(landing.searchParams.get('sso_code'));
    assert.doesNotMatch(callback.headers.location!, /eyJ/, 'no JWT in a URL');
    assert.equal(landing.pathname, '/portal/client');
    const token = await exchange(callback.headers.location!).expect(200);
    assert.equal(token.body.user.email, 'sam@assoc.test');
    assert.equal(token.body.user.role, 'ROLE_CLIENT_USER');
    assert.equal(token.body.mfaVerified, false);
    const me = await t.http.get('/api/auth/me').set(bearer(token.body.accessToken)).expect(200);
    assert.equal(me.body.organizationId, organizationId);
    const user = await User.findOne({ where: { email: 'sam@assoc.test' } });
    assert.equal(user?.department, 'Events');
    assert.equal(user?.jobTitle, 'Coordinator');
    assert.equal(user?.passwordHash, null);
    // the code works once
    expectProblem(await exchange(callback.headers.location!), 401, 'sso_login_failed');
    // the key travelled only server to server: in the token exchange and the connection lookup
    const withKey = idp.requests.filter((r) => r.body.includes(idp.apiKey) || r.authorization?.includes(idp.apiKey));
    assert.deepEqual([...new Set(withKey.map((r) => r.path))].sort(), ['/connections/conn_okta', '/sso/token']);
    // replaying the callback (its state is spent) is refused with a page a person can read
    const replay = await t.http.get(`${back.pathname}${back.search}`).expect(401);
    assert.match(replay.headers['content-type']!, /text\/html/);
    assert.match(replay.text, /SSO login failed/);
    const audit = await AuditEntry.findAll({ where: { action: 'sso.login', targetId: connectionId } });
    assert.equal(audit.length, 1);
  });

  it('when the groups change at the IdP, then the role follows, the highest group wins, and a member gets a member record', async () => {
    idp.nextLogin(
      {
        email: 'sam@assoc.test',
        first_name: 'Sam',
        last_name: 'Staff',
        groups: ['Guildhall Staff', 'guildhall admins'],
      },
      { connection: 'conn_okta' },
    );
    const promoted = await signIn(`connection=${connectionId}`);
    assert.equal(promoted.status, 302, promoted.text);
    assert.equal((await exchange(promoted.location!).expect(200)).body.user.role, 'ROLE_CLIENT_ADMIN');

    const existing = await buildMember(organizationId, {
      email: 'mia@assoc.test',
      firstName: 'Mia',
      lastName: 'Member',
    });
    idp.nextLogin(
      { email: 'mia@assoc.test', first_name: 'Mia', last_name: 'Member', groups: [] },
      { connection: 'conn_okta' },
    );
    const member = await signIn('email=mia@assoc.test');
    assert.equal(member.status, 302, member.text);
    assert.equal(new URL(member.location!).pathname, '/portal/member');
    const session = await exchange(member.location!).expect(200);
    assert.equal(session.body.user.role, 'ROLE_MEMBER');
    await existing.reload();
    assert.equal(existing.userId, session.body.user.id, 'linked to the member record with that e-mail');

    idp.nextLogin({ email: 'noah@assoc.test', first_name: 'Noah', last_name: 'New' }, { connection: 'conn_okta' });
    const fresh = await signIn(`organization=${organizationId}`);
    const noah = (await exchange(fresh.location!).expect(200)).body.user;
    const record = await Member.findOne({ where: { userId: noah.id } });
    assert.equal(record?.status, 'active');
    assert.equal(record?.organizationId, organizationId);
  });

  it('when a person a directory provisioned signs in, then the directory keeps their name, job and role', async () => {
    const directory = await addDirectory(t, { organizationId });
    const scim = scimClient(t, directory.token);
    expectScim(
      await scim.post('/Users', {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName: 'dora@assoc.test',
        name: { givenName: 'Dora', familyName: 'Directory' },
        emails: [{ primary: true, value: 'dora@assoc.test' }],
      }),
      201,
    );
    const before = (await User.findOne({ where: { email: 'dora@assoc.test' } }))!;
    idp.nextLogin(
      { email: 'dora@assoc.test', first_name: 'Evil', last_name: 'Name', groups: ['guildhall admins'] },
      { connection: 'conn_okta' },
    );
    const signedIn = await signIn(`connection=${connectionId}`);
    assert.equal(signedIn.status, 302, signedIn.text);
    const session = await exchange(signedIn.location!).expect(200);
    assert.equal(session.body.user.id, before.id);
    const after = (await User.findByPk(before.id))!;
    assert.deepEqual(
      [after.firstName, after.lastName, after.role],
      ['Dora', 'Directory', before.role],
      'the sign-in changed none of what the directory manages',
    );
    assert.ok(after.lastLoginAt, 'the sign-in itself is recorded');
  });

  it('when the profile is outside the organization, then nobody is signed in or taken over', async () => {
    const otherOrg = await buildOrganization();
    await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: otherOrg.id, email: 'boss@assoc.test' });
    idp.nextLogin({ email: 'boss@assoc.test', first_name: 'Boss', last_name: 'Other' }, { connection: 'conn_okta' });
    const takeover = await signIn(`connection=${connectionId}`);
    assert.equal(takeover.status, 401);
    assert.match(takeover.text, /cannot sign in through this connection/);
    const note = await AuditEntry.findOne({ where: { action: 'sso.login_failed', targetId: connectionId } });
    assert.equal(
      note?.after?.accountOrganizationId,
      otherOrg.id,
      'platform admins see both organizations in the audit trail',
    );
    assert.equal((await User.findOne({ where: { email: 'boss@assoc.test' } }))?.organizationId, otherOrg.id);

    idp.nextLogin(
      { email: 'eve@elsewhere.test', first_name: 'Eve', last_name: 'Outsider' },
      { connection: 'conn_okta' },
    );
    const foreign = await signIn(`connection=${connectionId}`);
    assert.equal(foreign.status, 401);
    assert.match(foreign.text, /elsewhere\.test is not a domain/);
    assert.equal(await User.count({ where: { email: 'eve@elsewhere.test' } }), 0);

    // a code the identity service issued for another connection
    idp.nextLogin({ email: 'ann@assoc.test', first_name: 'Ann', last_name: 'A' }, { connection: 'conn_other' });
    const crossed = await signIn(`connection=${connectionId}`);
    assert.equal(crossed.status, 401);
    assert.match(crossed.text, /another connection/);
    const failures = await AuditEntry.count({ where: { action: 'sso.login_failed', targetId: connectionId } });
    assert.ok(failures >= 3);
  });

  it('when the connection is unknown, disabled or named by no one, then the login fails with "Invalid connection"', async () => {
    const unknown = await t.http.get('/auth/sso?connection=6d1f1d3e-0000-4000-8000-000000000000').expect(400);
    assert.match(unknown.text, /Invalid connection/);
    const garbage = await t.http.get('/auth/sso?connection=not-a-uuid').expect(400);
    assert.match(garbage.text, /Invalid connection/);
    const nobody = await t.http.get('/auth/sso?email=someone@unclaimed.test').expect(400);
    assert.match(nobody.text, /Invalid connection/);
    await t.http.post(`/api/sso/connections/${connectionId}/disable`).set(bearer(adminToken)).expect(200);
    const disabled = await t.http.get(`/auth/sso?organization=${slug}`).expect(400);
    assert.match(disabled.text, /Invalid connection/);
    const [events] = await t.db.sequelize.query("SELECT data FROM domain_events WHERE type = 'connection.deactivated'");
    assert.equal((events as unknown[]).length, 1);
    await t.http.post(`/api/sso/connections/${connectionId}/enable`).set(bearer(adminToken)).expect(200);
  });

  it("when another organization's admin reaches for the connection, then it does not exist for them", async () => {
    const stranger = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN' }));
    expectProblem(
      await t.http.post(`/api/auth/sso/connections/${connectionId}`).set(bearer(stranger)),
      404,
      'not_found',
    );
    expectProblem(
      await t.http.patch(`/api/sso/connections/${connectionId}`).set(bearer(stranger)).send({ name: 'Mine now' }),
      404,
      'not_found',
    );
    expectProblem(await t.http.delete(`/api/sso/connections/${connectionId}`).set(bearer(stranger)), 404, 'not_found');
    const theirs = await t.http.post('/api/auth/sso/connections').set(bearer(stranger)).expect(200);
    assert.equal(theirs.body.pagination.totalItems, 0);
    // the same domain cannot be claimed by a second organization
    expectProblem(
      await t.http
        .post('/api/sso/connections')
        .set(bearer(stranger))
        .send({
          name: 'Squatter',
          protocol: 'identity_service',
          settings: { connection: 'conn_x' },
          domains: ['assoc.test'],
        }),
      409,
      'sso_domain_taken',
    );
    // members and staff do not configure SSO
    const staff = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_USER', organizationId }));
    expectProblem(await t.http.post('/api/auth/sso/connections').set(bearer(staff)), 403, 'forbidden');
  });

  it('when a connection is renamed and then deleted, then it is audited and its sign-ins stop', async () => {
    const renamed = await t.http
      .patch(`/api/sso/connections/${connectionId}`)
      .set(bearer(adminToken))
      .send({ name: 'Okta (members)' })
      .expect(200);
    assert.equal(renamed.body.name, 'Okta (members)');
    assert.equal(renamed.body.status, 'active', 'a rename keeps the test and the status');
    await t.http.delete(`/api/sso/connections/${connectionId}`).set(bearer(adminToken)).expect(204);
    const gone = await t.http.get(`/auth/sso?connection=${connectionId}`).expect(400);
    assert.match(gone.text, /Invalid connection/);
    const actions = (
      await AuditEntry.findAll({ where: { targetId: connectionId }, order: [['occurredAt', 'ASC']] })
    ).map((a) => a.action);
    for (const action of [
      'sso.connection_created',
      'sso.connection_tested',
      'sso.connection_enabled',
      'sso.connection_updated',
      'sso.connection_deleted',
    ])
      assert.ok(actions.includes(action), action);
  });

  it('when the login records expire, then the purge removes them and nothing else', async () => {
    const count = async () =>
      (
        (
          await t.db.sequelize.query(
            'SELECT (SELECT count(*) FROM sso_login_states) + (SELECT count(*) FROM sso_handoffs) AS n',
          )
        )[0] as Array<{ n: string }>
      )[0]!.n;
    assert.ok(Number(await count()) > 0);
    assert.equal(await t.container.services.ssoStore.purgeExpired(), 0, 'nothing has expired yet');
    t.clock.advance(24 * 3600 * 1000);
    assert.ok((await t.container.services.ssoStore.purgeExpired()) > 0);
    assert.equal(Number(await count()), 0);
  });
});
