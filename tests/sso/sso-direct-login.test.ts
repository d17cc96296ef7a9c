// Direct SSO, no broker: a client admin configures a SAML 2.0 connection (a samlify identity provider
// signs the responses) and an OIDC connection (a certified OpenID Provider on loopback), and people
// sign in through the browser surface end to end: /auth/sso → IdP → ACS or callback → one-time code.
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { inflateRawSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { AuditEntry } from '../../src/modules/audit/audit-entry.model.ts';
import { Member } from '../../src/modules/members/member.model.ts';
import { SsoConnection } from '../../src/modules/sso/sso-connection.model.ts';
import { User } from '../../src/modules/users/user.model.ts';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { type OidcIdp, startOidcIdp } from './fixtures/oidc-idp.ts';
import { createSamlIdp, type SamlIdp } from './fixtures/saml-idp.ts';

const BASE = 'https://guildhall.test';
const ENTRA = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/';
const ADMINS_GROUP = '6f1c2e4a-0000-4000-8000-000000000001';

describe('direct SSO over SAML 2.0 and OIDC', () => {
  let t: TestApp;
  let adminToken: string;
  let organizationId: string;

  before(async () => {
    // loopback IdPs: the SSRF guard's development switch lets discovery reach 127.0.0.1 over http
    t = await startTestApp({ env: { BASE_URL: BASE, WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' } });
    organizationId = (await buildOrganization()).id;
    adminToken = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
  });
  after(() => t.close());

  const exchange = (location: string) =>
    t.http.post('/api/auth/sso/token').send({ code: new URL(location).searchParams.get('sso_code') });

  async function activate(body: object): Promise<Record<string, any>> {
    const created = await t.http.post('/api/sso/connections').set(bearer(adminToken)).send(body).expect(201);
    const tested = await t.http
      .post(`/api/sso/connections/${created.body.id}/test`)
      .set(bearer(adminToken))
      .expect(200);
    assert.equal(tested.body.ok, true, tested.body.detail);
    return (await t.http.post(`/api/sso/connections/${created.body.id}/enable`).set(bearer(adminToken)).expect(200))
      .body;
  }

  describe('SAML 2.0 (Microsoft Entra ID-style claims)', () => {
    let idp: SamlIdp;
    let connection: Record<string, any>;
    const entraAttributes = {
      [`${ENTRA}emailaddress`]: 'Erin@Contoso.test',
      [`${ENTRA}givenname`]: 'Erin',
      [`${ENTRA}surname`]: 'Entra',
      'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups': [ADMINS_GROUP, 'another-group-id'],
      'http://schemas.microsoft.com/claims/authnmethodsreferences': [
        'http://schemas.microsoft.com/claims/multipleauthn',
      ],
    };

    /** GET /auth/sso, as a browser: the AuthnRequest's id and the RelayState (our state). */
    async function startLogin(): Promise<{ requestId: string; relayState: string }> {
      const start = await t.http.get(`/auth/sso?connection=${connection.id}`).expect(302);
      const url = new URL(start.headers.location!);
      assert.equal(`${url.origin}${url.pathname}`, idp.ssoUrl);
      const request = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
      return { requestId: /ID="([^"]+)"/.exec(request)![1]!, relayState: url.searchParams.get('RelayState')! };
    }

    const post = (form: Record<string, string>, id = connection.id) =>
      t.http.post(`/auth/saml/${id}/acs`).type('form').send(form);

    before(async () => {
      idp = createSamlIdp();
      connection = await activate({
        name: 'Entra ID',
        protocol: 'saml',
        settings: { idpEntityId: idp.entityId, idpSsoUrl: idp.ssoUrl, idpCertificate: idp.certificatePem },
        domains: ['contoso.test'],
        groupRoles: [{ group: ADMINS_GROUP, role: 'ROLE_CLIENT_ADMIN' }],
      });
    });

    it('when the IdP administrator reads our metadata, then it names the generated entity id and ACS URL', async () => {
      assert.equal(connection.serviceProvider.acsUrl, `${BASE}/auth/saml/${connection.id}/acs`);
      assert.equal(connection.serviceProvider.redirectUri, null, 'an OIDC address is no use to a SAML IdP');
      const metadata = await t.http.get(`/auth/saml/${connection.id}/metadata`).expect(200);
      assert.match(metadata.headers['content-type']!, /application\/samlmetadata\+xml/);
      assert.ok(metadata.text.includes(`entityID="${connection.serviceProvider.entityId}"`));
      assert.ok(metadata.text.includes(`Location="${connection.serviceProvider.acsUrl}"`));
    });

    it('when Entra answers our request with a signed assertion, then the person is signed in with the role of their group and MFA', async () => {
      const { requestId, relayState } = await startLogin();
      const SAMLResponse = await idp.loginResponse({
        spEntityId: connection.serviceProvider.entityId,
        acsUrl: connection.serviceProvider.acsUrl,
        inResponseTo: requestId,
        nameId: 'entra-object-id-erin',
        attributes: entraAttributes,
      });
      const done = await post({ SAMLResponse, RelayState: relayState }).expect(302);
      const session = await exchange(done.headers.location!).expect(200);
      assert.equal(session.body.user.email, 'erin@contoso.test');
      assert.equal(session.body.user.role, 'ROLE_CLIENT_ADMIN');
      assert.equal(session.body.mfaVerified, true, 'Entra asserted multi-factor authentication');
      // how: a federated sign-in with the IdP's MFA, not a password (RFC 8176 as Entra ID writes it)
      assert.deepEqual(decodeJwt(session.body.accessToken).amr, ['fed', 'mfa']);
      await t.http.get('/api/auth/me').set('Authorization', `Bearer ${session.body.accessToken}`).expect(200);
      const user = await User.findOne({ where: { email: 'erin@contoso.test' } });
      assert.equal(user?.ssoSubject, 'entra-object-id-erin');

      // the same response again: its state is spent and its assertion id remembered
      const replay = await post({ SAMLResponse, RelayState: relayState }).expect(401);
      assert.match(replay.text, /SSO login failed/);
    });

    it('when a signed value is edited, or the response answers another connection, then it is refused', async () => {
      const { requestId, relayState } = await startLogin();
      const genuine = await idp.loginResponse({
        spEntityId: connection.serviceProvider.entityId,
        acsUrl: connection.serviceProvider.acsUrl,
        inResponseTo: requestId,
        nameId: 'entra-object-id-erin',
        attributes: entraAttributes,
      });
      const xml = Buffer.from(genuine, 'base64').toString('utf8').replace('Erin@Contoso.test', 'Mallory@Contoso.test');
      await post({ SAMLResponse: Buffer.from(xml).toString('base64'), RelayState: relayState }).expect(401);
      assert.equal(await User.count({ where: { email: 'mallory@contoso.test' } }), 0);

      const other = await t.http
        .post('/api/sso/connections')
        .set(bearer(adminToken))
        .send({
          name: 'Second SAML',
          protocol: 'saml',
          settings: { idpEntityId: idp.entityId, idpSsoUrl: idp.ssoUrl, idpCertificate: idp.certificatePem },
        })
        .expect(201);
      const next = await startLogin();
      const response = await idp.loginResponse({
        spEntityId: connection.serviceProvider.entityId,
        acsUrl: connection.serviceProvider.acsUrl,
        inResponseTo: next.requestId,
        nameId: 'entra-object-id-erin',
        attributes: entraAttributes,
      });
      // a draft connection is not usable at all; an active one would refuse a state it did not issue
      const crossed = await post({ SAMLResponse: response, RelayState: next.relayState }, other.body.id).expect(401);
      assert.match(crossed.text, /another connection/);
    });

    it('when a sign-in starts at the IdP (an app tile), then it is refused unless the connection allows it', async () => {
      const unsolicited = () =>
        idp.loginResponse({
          spEntityId: connection.serviceProvider.entityId,
          acsUrl: connection.serviceProvider.acsUrl,
          nameId: 'entra-object-id-erin',
          attributes: entraAttributes,
        });
      await post({ SAMLResponse: await unsolicited() }).expect(401);
      await t.http
        .patch(`/api/sso/connections/${connection.id}`)
        .set(bearer(adminToken))
        .send({ allowIdpInitiated: true })
        .expect(200);
      const done = await post({ SAMLResponse: await unsolicited() }).expect(302);
      assert.equal((await exchange(done.headers.location!).expect(200)).body.user.email, 'erin@contoso.test');
    });

    it('when the certificate on save has expired or the form is not a form, then the answers say so', async () => {
      const { pems } = await import('./fixtures/saml-idp.ts');
      const refused = expectProblem(
        await t.http
          .post('/api/sso/connections')
          .set(bearer(adminToken))
          .send({
            name: 'Old',
            protocol: 'saml',
            settings: { idpEntityId: idp.entityId, idpSsoUrl: idp.ssoUrl, idpCertificate: pems.expiredCert },
          }),
        400,
        'validation_failed',
      );
      assert.equal(refused.errors[0].field, 'settings.idpCertificate');
      assert.match(refused.errors[0].message, /expired/);
      await t.http
        .post(`/auth/saml/${connection.id}/acs`)
        .set('Content-Type', 'application/json')
        .send('{}')
        .expect(415);
    });
  });

  describe('OIDC (Google Workspace-style claims)', () => {
    let idp: OidcIdp;
    let connection: Record<string, any>;
    const client = {
      clientId: 'guildhall',
      clientSecret: 'oidc-secret-0123456789',
      redirectUris: [`${BASE}/auth/callback/idp`],
    };
    // read by the IdP at each sign-in: a test may change a person's claims
    const accounts: Record<string, Record<string, unknown>> = {
      gina: {
        email: 'gina@workspace.test',
        email_verified: true,
        given_name: 'Gina',
        family_name: 'Google',
        hd: 'workspace.test',
        amr: ['pwd'],
      },
      spoof: {
        email: 'sp00f@workspace.test',
        email_verified: true,
        given_name: 'S',
        family_name: 'P',
        hd: 'gmail.com',
      },
    };

    before(async () => {
      idp = await startOidcIdp({ clients: [client], claimsInIdToken: true, accounts });
      const missing = expectProblem(
        await t.http
          .post('/api/sso/connections')
          .set(bearer(adminToken))
          .send({
            name: 'Google',
            protocol: 'oidc',
            settings: { clientId: client.clientId, discoveryUrl: idp.discoveryUrl },
          }),
        400,
        'validation_failed',
      );
      assert.equal(missing.errors[0].field, 'clientSecret');
      connection = await activate({
        name: 'Google Workspace',
        protocol: 'oidc',
        settings: { clientId: client.clientId, discoveryUrl: idp.issuer },
        clientSecret: client.clientSecret,
        domains: ['workspace.test'],
      });
      assert.equal(connection.clientSecretSet, true);
      assert.ok(!JSON.stringify(connection).includes(client.clientSecret), 'the secret is write-only');
    });
    after(() => idp.close());

    it('when a Google user signs in with the e-mail domain, then a member account and member record are created', async () => {
      const start = await t.http.get('/auth/sso?email=gina@workspace.test').expect(302);
      const authorize = new URL(start.headers.location!);
      assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
      assert.equal(authorize.searchParams.get('redirect_uri'), connection.serviceProvider.redirectUri);
      // only the OIDC address: the SAML ones answered "There is no such SAML connection"
      const { entityId, acsUrl, metadataUrl } = connection.serviceProvider;
      assert.deepEqual([entityId, acsUrl, metadataUrl], [null, null, null]);
      const back = await idp.authorize(start.headers.location!, 'gina');
      const done = await t.http.get(`${back.pathname}${back.search}`).expect(302);
      const session = await exchange(done.headers.location!).expect(200);
      assert.equal(session.body.user.role, 'ROLE_MEMBER', 'no groups: the default role');
      assert.equal(session.body.mfaVerified, false);
      assert.deepEqual(decodeJwt(session.body.accessToken).amr, ['fed']);
      const member = await Member.findOne({ where: { userId: session.body.user.id } });
      assert.equal(member?.email, 'gina@workspace.test');
      // the code is spent at the IdP and the state here: the same callback again is refused
      await t.http.get(`${back.pathname}${back.search}`).expect(401);
    });

    it('when the state is not ours or the hosted domain disagrees with the e-mail, then nobody is signed in', async () => {
      const start = await t.http.get(`/auth/sso?connection=${connection.id}`).expect(302);
      const back = await idp.authorize(start.headers.location!, 'gina');
      back.searchParams.set('state', 'forged-state');
      const forged = await t.http.get(`${back.pathname}${back.search}`).expect(401);
      assert.match(forged.text, /unknown, expired or already used/);

      const again = await t.http.get(`/auth/sso?connection=${connection.id}`).expect(302);
      const spoofed = await idp.authorize(again.headers.location!, 'spoof');
      const refused = await t.http.get(`${spoofed.pathname}${spoofed.search}`).expect(401);
      assert.match(refused.text, /Google Workspace domain/);
      assert.equal(await User.count({ where: { email: 'sp00f@workspace.test' } }), 0);
    });

    it('when a second connection of the organization lists the same domain, then the older one still signs it in', async () => {
      // moving to another IdP: the new connection is added beside the old one and takes over once enabled
      const newer = await SsoConnection.create({
        organizationId,
        name: 'Next IdP',
        protocol: 'identity_service',
        settings: { connection: 'conn_next' },
        status: 'active',
        domains: ['workspace.test'],
      });
      // the older row rewritten: PostgreSQL now reads it after the newer one
      await t.http
        .patch(`/api/sso/connections/${connection.id}`)
        .set(bearer(adminToken))
        .send({ name: 'Google' })
        .expect(200);
      for (let i = 0; i < 3; i++) {
        const start = await t.http.get('/auth/sso?email=gina@workspace.test').expect(302);
        assert.equal(new URL(start.headers.location!).origin, new URL(idp.issuer).origin);
      }
      await newer.destroy();
    });

    it("when the IdP changes a person's e-mail, then their account follows it, unless another account has it", async () => {
      const signIn = async () => {
        const start = await t.http.get(`/auth/sso?connection=${connection.id}`).expect(302);
        const back = await idp.authorize(start.headers.location!, 'gina');
        const done = await t.http.get(`${back.pathname}${back.search}`).expect(302);
        return (await exchange(done.headers.location!).expect(200)).body.user as { id: string; email: string };
      };
      const gina = (await User.findOne({ where: { email: 'gina@workspace.test' } }))!;
      try {
        accounts.gina!.email = 'gina.green@workspace.test'; // married, renamed at the IdP
        const renamed = await signIn();
        assert.deepEqual([renamed.id, renamed.email], [gina.id, 'gina.green@workspace.test']);
        const audit = await AuditEntry.findOne({ where: { action: 'sso.user_updated', targetId: gina.id } });
        assert.equal((audit!.before as { email: string }).email, 'gina@workspace.test');
        // an address another account holds is not taken: the person keeps theirs and signs in
        await buildUser({ organizationId, role: 'ROLE_MEMBER', email: 'gina.gray@workspace.test' });
        accounts.gina!.email = 'gina.gray@workspace.test';
        const kept = await signIn();
        assert.deepEqual([kept.id, kept.email], [gina.id, 'gina.green@workspace.test']);
      } finally {
        accounts.gina!.email = 'gina@workspace.test';
      }
    });
  });
});
