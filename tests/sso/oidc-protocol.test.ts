// The direct OpenID Connect adapter against a real, certified OpenID Provider (oidc-provider) on loopback:
// the whole code flow with PKCE, driven by openid-client, and each check that must refuse a login.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock, systemClock } from '../../src/shared/clock.ts';
import { AppError } from '../../src/shared/errors.ts';
import { OidcProtocol } from '../../src/modules/sso/protocols/oidc.protocol.ts';
import type { ProtocolConnection, ProtocolContext } from '../../src/modules/sso/protocols/sso-protocol.ts';
import { type IdpClient, type OidcIdp, startOidcIdp } from './fixtures/oidc-idp.ts';

const REDIRECT_URI = 'https://guildhall.test/auth/callback/idp';
const CLIENT_A: IdpClient = { clientId: 'guildhall-a', clientSecret: 'secret-a', redirectUris: [REDIRECT_URI] };
const CLIENT_B: IdpClient = { clientId: 'guildhall-b', clientSecret: 'secret-b', redirectUris: [REDIRECT_URI] };

const ACCOUNTS = {
  // Okta-style: groups, MFA; e-mail not verified.
  alice: {
    email: 'Alice@Example.org',
    email_verified: false,
    given_name: 'Alice',
    family_name: 'Liddell',
    groups: ['admins', 'staff'],
    hd: 'example.org',
    amr: ['pwd', 'mfa'],
  },
  // Google-style: hosted domain, verified e-mail, no groups, password only.
  gina: {
    email: 'gina@workspace.example',
    email_verified: true,
    given_name: 'Gina',
    family_name: 'G',
    hd: 'workspace.example',
    amr: ['pwd'],
  },
  // Entra-style: a UPN instead of an e-mail claim, group object ids.
  erin: {
    upn: 'erin@contoso.example',
    given_name: 'Erin',
    family_name: 'E',
    groups: ['6f1c2e4a-0000-4000-8000-000000000001'],
    amr: ['pwd', 'mfa'],
  },
  nomail: { given_name: 'No', family_name: 'Mail' },
};

function makeContext(overrides: Partial<ProtocolContext> = {}): ProtocolContext & { checked: string[] } {
  const checked: string[] = [];
  return {
    clock: systemClock,
    replayCache: { remember: async () => true },
    checkOutboundUrl: async (url: string) => {
      checked.push(url);
      return new URL(url);
    },
    allowInsecureHttp: true,
    spSigning: null,
    checked,
    ...overrides,
  };
}

function connectionTo(idp: OidcIdp, client: IdpClient, id = 'conn-a'): ProtocolConnection<'oidc'> {
  return {
    id,
    organizationId: 'org-1',
    settings: { clientId: client.clientId, discoveryUrl: idp.discoveryUrl },
    secret: client.clientSecret,
    allowIdpInitiated: false,
    urls: { spEntityId: '', acsUrl: '', metadataUrl: '', redirectUri: REDIRECT_URI },
  };
}

/** begin -> the IdP logs `accountId` in -> the callback address and what begin kept. */
async function login(protocol: OidcProtocol, connection: ProtocolConnection<'oidc'>, idp: OidcIdp, accountId: string) {
  const start = await protocol.begin(connection, `state-${Math.random().toString(36).slice(2)}`);
  const callback = await idp.authorize(start.redirectUrl, accountId);
  return { start, callback, input: { url: callback, form: {} } };
}

function refused(code: 'sso_login_failed' | 'validation_failed' | 'invalid_connection', detail?: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof AppError, `an AppError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (detail) assert.match(err.message, detail);
    return true;
  };
}

describe('OIDC protocol adapter against oidc-provider', () => {
  let idp: OidcIdp;
  let googleIdp: OidcIdp;

  before(async () => {
    idp = await startOidcIdp({ clients: [CLIENT_A, CLIENT_B], accounts: ACCOUNTS });
    googleIdp = await startOidcIdp({ clients: [CLIENT_A], accounts: ACCOUNTS, claimsInIdToken: true });
  });
  after(async () => {
    await idp.close();
    await googleIdp.close();
  });

  it('when a login completes, then the profile carries the claims from the ID token and userinfo', async () => {
    const protocol = new OidcProtocol(makeContext());
    const connection = connectionTo(idp, CLIENT_A);
    const { start, input } = await login(protocol, connection, idp, 'alice');
    const authorization = new URL(start.redirectUrl);
    assert.equal(authorization.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorization.searchParams.get('scope'), 'openid email profile');
    assert.equal(authorization.searchParams.get('nonce'), start.secrets.nonce);
    const userinfoBefore = idp.requests('/me');

    const profile = await protocol.complete(connection, input, start.secrets);

    assert.deepEqual(profile, {
      subject: 'alice',
      email: 'alice@example.org',
      emailVerified: false,
      firstName: 'Alice',
      lastName: 'Liddell',
      groups: ['admins', 'staff'],
      department: null,
      jobTitle: null,
      mfa: true,
      hostedDomain: 'example.org',
    });
    assert.equal(idp.requests('/me'), userinfoBefore + 1, 'the code-flow ID token lacks e-mail: userinfo was asked');
  });

  it('when a Google-style IdP puts the claims in the ID token, then no userinfo call is made and groups are empty', async () => {
    const protocol = new OidcProtocol(makeContext());
    const connection = connectionTo(googleIdp, CLIENT_A);
    const { start, input } = await login(protocol, connection, googleIdp, 'gina');
    const profile = await protocol.complete(connection, input, start.secrets);
    assert.equal(profile.email, 'gina@workspace.example');
    assert.equal(profile.emailVerified, true);
    assert.equal(profile.hostedDomain, 'workspace.example');
    assert.deepEqual(profile.groups, []);
    assert.equal(profile.mfa, false);
    assert.deepEqual([profile.firstName, profile.lastName], ['Gina', 'G']);
    assert.equal(googleIdp.requests('/me'), 0);
  });

  it('when an Entra-style IdP sends a UPN and group ids, then the UPN is the e-mail and the ids the groups', async () => {
    const protocol = new OidcProtocol(makeContext());
    const connection = connectionTo(idp, CLIENT_A);
    const { start, input } = await login(protocol, connection, idp, 'erin');
    const profile = await protocol.complete(connection, input, start.secrets);
    assert.equal(profile.email, 'erin@contoso.example');
    assert.deepEqual(profile.groups, ['6f1c2e4a-0000-4000-8000-000000000001']);
    assert.equal(profile.mfa, true);
  });

  it('when the callback state is not the one sent, then the login is refused', async () => {
    const protocol = new OidcProtocol(makeContext());
    const connection = connectionTo(idp, CLIENT_A);
    const { start, callback } = await login(protocol, connection, idp, 'alice');
    callback.searchParams.set('state', 'forged-state');
    await assert.rejects(
      protocol.complete(connection, { url: callback, form: {} }, start.secrets),
      refused('sso_login_failed', /state/),
    );
  });

  it('when the same callback is completed twice, then the replayed code is refused', async () => {
    const protocol = new OidcProtocol(makeContext());
    const connection = connectionTo(idp, CLIENT_A);
    const { start, input } = await login(protocol, connection, idp, 'alice');
    await protocol.complete(connection, input, start.secrets);
    await assert.rejects(
      protocol.complete(connection, input, start.secrets),
      refused('sso_login_failed', /invalid_grant/),
    );
  });

  it('when the ID token is for another audience (validly signed), then the login is refused', async (t) => {
    const protocol = new OidcProtocol(makeContext());
    const connection = connectionTo(idp, CLIENT_A);
    t.after(() => idp.tamperIdTokens(null));

    // Control: re-signing an unchanged token keeps it valid, so the refusal below is the audience's doing.
    idp.tamperIdTokens((claims) => claims);
    const control = await login(protocol, connection, idp, 'alice');
    assert.equal((await protocol.complete(connection, control.input, control.start.secrets)).subject, 'alice');

    idp.tamperIdTokens((claims) => ({ ...claims, aud: CLIENT_B.clientId, azp: CLIENT_B.clientId }));
    const { start, input } = await login(protocol, connection, idp, 'alice');
    await assert.rejects(protocol.complete(connection, input, start.secrets), refused('sso_login_failed', /"aud"/));
  });

  it('when a code issued to one client is redeemed with another client, then the login is refused', async () => {
    const protocol = new OidcProtocol(makeContext());
    const { start, input } = await login(protocol, connectionTo(idp, CLIENT_A), idp, 'alice');
    const other = connectionTo(idp, CLIENT_B, 'conn-b');
    await assert.rejects(protocol.complete(other, input, start.secrets), refused('sso_login_failed', /invalid_grant/));
  });

  it('when our clock is past the ID token expiry, then the login is refused (openid-client follows the clock)', async () => {
    const clock = new ManualClock();
    const protocol = new OidcProtocol(makeContext({ clock }));
    const connection = connectionTo(idp, CLIENT_A);
    const { start, input } = await login(protocol, connection, idp, 'alice');
    clock.advance(2 * 60 * 60 * 1000); // oidc-provider's ID tokens live one hour
    await assert.rejects(protocol.complete(connection, input, start.secrets), refused('sso_login_failed', /"exp"/));
  });

  it('when the nonce kept at begin does not match the ID token, then the login is refused', async () => {
    const protocol = new OidcProtocol(makeContext());
    const connection = connectionTo(idp, CLIENT_A);
    const { start, input } = await login(protocol, connection, idp, 'alice');
    const saved = { ...start.secrets, nonce: 'another-nonce' };
    await assert.rejects(protocol.complete(connection, input, saved), refused('sso_login_failed', /"nonce"/));
  });

  it('when the IdP answers access_denied, then the login fails with its description', async () => {
    const protocol = new OidcProtocol(makeContext());
    const connection = connectionTo(idp, CLIENT_A);
    const start = await protocol.begin(connection, 'state-denied');
    const callback = await idp.authorize(start.redirectUrl, 'alice', { deny: true });
    assert.equal(callback.searchParams.get('error'), 'access_denied');
    await assert.rejects(
      protocol.complete(connection, { url: callback, form: {} }, start.secrets),
      refused('sso_login_failed', /access_denied: The user declined to sign in/),
    );
  });

  it('when nothing was kept for the callback or the IdP sends no e-mail, then the login is refused', async () => {
    const protocol = new OidcProtocol(makeContext());
    const connection = connectionTo(idp, CLIENT_A);
    const first = await login(protocol, connection, idp, 'alice');
    await assert.rejects(protocol.complete(connection, first.input, null), refused('sso_login_failed'));
    const { start, input } = await login(protocol, connection, idp, 'nomail');
    await assert.rejects(protocol.complete(connection, input, start.secrets), refused('sso_login_failed', /e-mail/));
  });

  it('when logins repeat, then the discovery document is fetched once (cached per connection)', async () => {
    const protocol = new OidcProtocol(makeContext());
    const connection = connectionTo(idp, CLIENT_A, 'conn-cache');
    const before = idp.requests('/.well-known/openid-configuration');
    await protocol.begin(connection, 's1');
    await protocol.begin(connection, 's2');
    await protocol.begin(connection, 's3');
    assert.equal(idp.requests('/.well-known/openid-configuration'), before + 1);
    await protocol.prepare(connection.settings, CLIENT_A.clientSecret);
    assert.equal(idp.requests('/.well-known/openid-configuration'), before + 2, 'prepare bypasses the cache');
  });

  describe('prepare', () => {
    it('when given the issuer or the well-known address, then both are stored as the well-known address', async () => {
      const context = makeContext();
      const protocol = new OidcProtocol(context);
      const fromIssuer = await protocol.prepare({ clientId: '  guildhall-a ', discoveryUrl: idp.issuer }, 'secret-a');
      assert.deepEqual(fromIssuer, { clientId: 'guildhall-a', discoveryUrl: idp.discoveryUrl });
      const fromWellKnown = await protocol.prepare({ clientId: 'guildhall-a', discoveryUrl: idp.discoveryUrl }, 'x');
      assert.deepEqual(fromWellKnown, { clientId: 'guildhall-a', discoveryUrl: idp.discoveryUrl });
      assert.ok(context.checked.includes(idp.discoveryUrl), 'the SSRF guard saw the discovery address');
      assert.ok(context.checked.includes(`${idp.issuer}/token`), 'and the token endpoint');
    });

    it('when the discovery address is unreachable, then settings.discoveryUrl is refused', async () => {
      const protocol = new OidcProtocol(makeContext());
      const settings = { clientId: 'guildhall-a', discoveryUrl: 'http://127.0.0.1:1/.well-known/openid-configuration' };
      await assert.rejects(protocol.prepare(settings, 'secret-a'), (err: unknown) => {
        refused('validation_failed')(err);
        const fields = (err as AppError).extras.errors ?? [];
        assert.equal(fields[0]?.field, 'settings.discoveryUrl');
        assert.match(fields[0]?.message ?? '', /unreachable/);
        return true;
      });
    });

    it('when the address is plain http and insecure http is not allowed, then it is refused before any fetch', async () => {
      const context = makeContext({ allowInsecureHttp: false });
      const protocol = new OidcProtocol(context);
      const before = idp.requests('/.well-known/openid-configuration');
      await assert.rejects(
        protocol.prepare({ clientId: 'guildhall-a', discoveryUrl: idp.discoveryUrl }, 'secret-a'),
        (err) => {
          refused('validation_failed')(err);
          assert.deepEqual((err as AppError).extras.errors, [
            {
              field: 'settings.discoveryUrl',
              message: 'must use https (http only with WEBHOOKS_ALLOW_PRIVATE_TARGETS=true, for development)',
            },
          ]);
          return true;
        },
      );
      assert.equal(idp.requests('/.well-known/openid-configuration'), before);
      assert.deepEqual(context.checked, []);
    });

    it('when the secret or the client id is missing or the address is not a URL, then each field is named', async () => {
      const protocol = new OidcProtocol(makeContext());
      await assert.rejects(protocol.prepare({ clientId: '', discoveryUrl: 'not a url' }, null), (err) => {
        refused('validation_failed')(err);
        const fields = ((err as AppError).extras.errors ?? []).map((e) => e.field).sort();
        assert.deepEqual(fields, ['clientSecret', 'settings.clientId', 'settings.discoveryUrl']);
        return true;
      });
      await assert.rejects(
        protocol.prepare({ clientId: 'guildhall-a', discoveryUrl: idp.discoveryUrl }, ''),
        (err) => refused('validation_failed')(err) && (err as AppError).extras.errors?.[0]?.field === 'clientSecret',
      );
    });

    it('when the SSRF guard refuses the address, then its refusal stands', async () => {
      const guard = async (_url: string, field: string): Promise<URL> => {
        throw new AppError('validation_failed', 'private address', {
          errors: [{ field, message: 'is a private address' }],
        });
      };
      const protocol = new OidcProtocol(makeContext({ checkOutboundUrl: guard }));
      await assert.rejects(
        protocol.prepare({ clientId: 'guildhall-a', discoveryUrl: idp.discoveryUrl }, 'secret-a'),
        (err) => {
          refused('validation_failed')(err);
          assert.deepEqual((err as AppError).extras.errors, [
            { field: 'settings.discoveryUrl', message: 'is a private address' },
          ]);
          return true;
        },
      );
    });
  });

  describe('test', () => {
    it('when the connection works, then it reports the issuer, the keys and the accepted credentials', async () => {
      const protocol = new OidcProtocol(makeContext());
      const result = await protocol.test(connectionTo(idp, CLIENT_A));
      assert.equal(result.ok, true, result.detail);
      assert.match(result.detail, new RegExp(`Issuer ${idp.issuer}`));
      assert.match(result.detail, /JWKS: 1 key/);
      assert.match(result.detail, /accepts the client credentials/);
    });

    it('when the secret is wrong or the IdP is unreachable, then it says so', async () => {
      const protocol = new OidcProtocol(makeContext());
      const wrongSecret = await protocol.test({ ...connectionTo(idp, CLIENT_A), secret: 'wrong' });
      assert.equal(wrongSecret.ok, false);
      assert.match(wrongSecret.detail, /invalid_client/);
      const down = connectionTo(idp, CLIENT_A);
      down.settings = { ...down.settings, discoveryUrl: 'http://127.0.0.1:1' };
      const unreachable = await protocol.test(down);
      assert.equal(unreachable.ok, false);
      assert.match(unreachable.detail, /Discovery failed: unreachable/);
    });
  });
});
