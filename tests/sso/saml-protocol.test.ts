import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { inflateRawSync } from 'node:zlib';
import { SamlProtocol } from '../../src/modules/sso/protocols/saml.protocol.ts';
import type {
  ProtocolConnection,
  ProtocolContext,
  ReplayCache,
  SamlSettings,
} from '../../src/modules/sso/protocols/sso-protocol.ts';
import { ManualClock } from '../../src/shared/clock.ts';
import { AppError, errors } from '../../src/shared/errors.ts';
import { createSamlIdp, type LoginResponseOptions, pems } from './fixtures/saml-idp.ts';

class MemoryReplayCache implements ReplayCache {
  readonly seen = new Map<string, Date>();
  async remember(key: string, until: Date): Promise<boolean> {
    if (this.seen.has(key)) return false;
    this.seen.set(key, until);
    return true;
  }
}

function makeContext(overrides: Partial<ProtocolContext> = {}): ProtocolContext {
  return {
    // node-saml checks assertion times against the system clock, so tests keep the manual one at real time.
    clock: new ManualClock(),
    replayCache: new MemoryReplayCache(),
    checkOutboundUrl: async (url, field) => {
      const parsed = new URL(url);
      if (parsed.hostname !== '127.0.0.1') throw errors.validation([{ field, message: 'is not a loopback address' }]);
      return parsed;
    },
    allowInsecureHttp: true,
    spSigning: null,
    ...overrides,
  };
}

const idp = createSamlIdp();
const SP = 'https://guildhall.test/auth/saml/conn-1/metadata';
const ACS = 'https://guildhall.test/auth/saml/conn-1/acs';

function makeConnection(overrides: Partial<ProtocolConnection<'saml'>> = {}): ProtocolConnection<'saml'> {
  return {
    id: 'conn-1',
    organizationId: 'org-1',
    settings: { idpEntityId: idp.entityId, idpSsoUrl: idp.ssoUrl, idpCertificate: idp.certificatePem },
    secret: null,
    allowIdpInitiated: false,
    urls: { spEntityId: SP, acsUrl: ACS, metadataUrl: SP, redirectUri: 'https://guildhall.test/auth/callback/idp' },
    ...overrides,
  };
}

const OKTA = { email: 'Ada@Example.org', firstName: 'Ada', lastName: 'Lovelace', groups: ['Board', 'Members'] };
const decode = (base64: string) => Buffer.from(base64, 'base64').toString('utf8');
const encode = (xml: string) => Buffer.from(xml).toString('base64');
const callback = (SAMLResponse: string) => ({ url: new URL(ACS), form: { SAMLResponse, RelayState: 'state-1' } });

/** SP-initiated: begin, the IdP answers that request, complete with what begin kept. */
async function signIn(
  protocol: SamlProtocol,
  options: Partial<LoginResponseOptions> = {},
  edit: (xml: string) => string = (xml) => xml,
  connection = makeConnection(),
) {
  const { secrets } = await protocol.begin(connection, 'state-1');
  const response = await idp.loginResponse({
    spEntityId: SP,
    acsUrl: ACS,
    inResponseTo: secrets.requestId,
    nameId: 'okta-00u1',
    attributes: OKTA,
    ...options,
  });
  return protocol.complete(connection, callback(encode(edit(decode(response)))), secrets);
}

async function refused(promise: Promise<unknown>, detail: RegExp) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError, `expected an AppError, got ${error}`);
    assert.equal(error.code, 'sso_login_failed');
    assert.match(error.message, detail);
    assert.doesNotMatch(error.message, /<|attacker/, 'the detail carries no XML and no value from the response');
    return true;
  });
}

// The signed assertion, and a forged copy of it: attacker's e-mail, its own ID, no signature.
const ASSERTION = /<saml:Assertion[\s\S]*<\/saml:Assertion>/;
const SIGNATURE = /<ds:Signature[\s\S]*<\/ds:Signature>/;
const assertionOf = (xml: string) => ASSERTION.exec(xml)?.[0] ?? assert.fail('no assertion');
const signatureOf = (xml: string) => SIGNATURE.exec(xml)?.[0] ?? assert.fail('no signature');
const forge = (assertion: string, id = '_evil') =>
  assertion
    .replace(SIGNATURE, '')
    .replace(/ ID="[^"]+"/, ` ID="${id}"`)
    .replace('Ada@Example.org', 'attacker@evil.test');

describe('SAML adapter: begin', () => {
  it('when a login begins, then the browser goes to the IdP with a deflated AuthnRequest, our state as RelayState, and its id kept', async () => {
    const { redirectUrl, secrets } = await new SamlProtocol(makeContext()).begin(makeConnection(), 'state-1');
    const url = new URL(redirectUrl);
    assert.equal(`${url.origin}${url.pathname}`, idp.ssoUrl);
    assert.equal(url.searchParams.get('RelayState'), 'state-1');
    const request = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
    assert.match(request, new RegExp(`ID="${secrets.requestId}"`));
    assert.match(request, new RegExp(`AssertionConsumerServiceURL="${ACS}"`));
    assert.match(request, new RegExp(`<saml:Issuer[^>]*>${SP}</saml:Issuer>`));
    assert.doesNotMatch(request, /RequestedAuthnContext/, 'no authentication method is demanded (Entra AADSTS75011)');
    assert.ok(!Number.isNaN(Date.parse(secrets.requestedAt)));
    assert.equal(url.searchParams.get('Signature'), null, 'unsigned without an SP key');
  });

  it('when an SP signing pair is configured, then the redirect is signed (SigAlg rsa-sha256, Signature)', async () => {
    const context = makeContext({ spSigning: { privateKey: pems.spKey, certificate: pems.spCert } });
    const url = new URL((await new SamlProtocol(context).begin(makeConnection(), 'state-1')).redirectUrl);
    assert.equal(url.searchParams.get('SigAlg'), 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    assert.ok(url.searchParams.get('Signature'));
  });

  it("when the connection's IdP certificate has expired since it was saved, then the login cannot start or finish", async () => {
    const connection = makeConnection();
    connection.settings = { ...connection.settings, idpCertificate: pems.expiredCert };
    const protocol = new SamlProtocol(makeContext());
    const unusable = (error: unknown) =>
      error instanceof AppError && error.code === 'invalid_connection' && /expired on 2024-03-01/.test(error.message);
    await assert.rejects(protocol.begin(connection, 'state-1'), unusable);
    const response = await idp.loginResponse({ spEntityId: SP, acsUrl: ACS, inResponseTo: '_r', nameId: 'x' });
    await assert.rejects(protocol.complete(connection, callback(response), { requestId: '_r' }), unusable);
  });
});

describe('SAML adapter: complete, accepted', () => {
  it('when Okta-style attributes come back signed, then the profile has e-mail, names and the groups array', async () => {
    const profile = await signIn(new SamlProtocol(makeContext()));
    assert.deepEqual(profile, {
      subject: 'okta-00u1',
      email: 'ada@example.org',
      emailVerified: true,
      firstName: 'Ada',
      lastName: 'Lovelace',
      groups: ['Board', 'Members'],
      department: null,
      jobTitle: null,
      mfa: false,
      hostedDomain: null,
    });
  });

  it('when Entra-style claim URIs come back (group object ids, multipleauthn), then they map and mfa is true', async () => {
    const WS = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/';
    const groupIds = ['5f6c7e1a-8a1b-4d1e-9a63-2d4f0f1c0a11', 'c0ffee00-1111-2222-3333-444455556666'];
    const profile = await signIn(new SamlProtocol(makeContext()), {
      nameId: 'entra-oid-1',
      attributes: {
        [`${WS}emailaddress`]: 'grace@contoso.test',
        [`${WS}givenname`]: 'Grace',
        [`${WS}surname`]: 'Hopper',
        'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups': groupIds,
        'http://schemas.microsoft.com/claims/authnmethodsreferences': [
          'http://schemas.microsoft.com/ws/2008/06/identity/authenticationmethod/password',
          'http://schemas.microsoft.com/claims/multipleauthn',
        ],
      },
    });
    assert.equal(profile.subject, 'entra-oid-1');
    assert.equal(profile.email, 'grace@contoso.test');
    assert.equal(profile.firstName, 'Grace');
    assert.equal(profile.lastName, 'Hopper');
    assert.deepEqual(profile.groups, groupIds);
    assert.equal(profile.mfa, true);
  });

  it('when the AuthnStatement names a multi-factor context class, then mfa is true', async () => {
    const authnContext = 'http://schemas.microsoft.com/claims/multipleauthn';
    assert.equal((await signIn(new SamlProtocol(makeContext()), { authnContext })).mfa, true);
  });

  it('when both envelope and assertion are signed, then it is accepted too', async () => {
    const profile = await signIn(new SamlProtocol(makeContext()), { signResponse: true });
    assert.equal(profile.email, 'ada@example.org');
  });
});

describe('SAML adapter: complete, attacks and mistakes refused', () => {
  it('when a signed attribute is edited after signing, then the signature fails', async () => {
    const edit = (xml: string) => xml.replace('Ada@Example.org', 'attacker@evil.test');
    await refused(signIn(new SamlProtocol(makeContext()), {}, edit), /signature is invalid/);
  });

  it('when a forged assertion sits beside the signed one (XSW), then it is refused', async () => {
    const edit = (xml: string) => xml.replace(ASSERTION, (signed) => forge(signed) + signed);
    await refused(signIn(new SamlProtocol(makeContext()), {}, edit), /no usable assertion|signature/);
  });

  it('when the signed assertion is wrapped inside a forged one (XSW), then it is refused', async () => {
    // The forged assertion is the Response's only assertion; the genuine one, signature intact, hides inside it.
    const edit = (xml: string) =>
      xml.replace(ASSERTION, (signed) => forge(signed).replace('</saml:Issuer>', `</saml:Issuer>${signed}`));
    await refused(signIn(new SamlProtocol(makeContext()), {}, edit), /signature is invalid/);
  });

  it('when the genuine signature is moved onto a forged assertion wrapping the original (XSW), then it is refused', async () => {
    // The signature still references the genuine assertion's ID, which now sits inside the forged one.
    const edit = (xml: string) =>
      xml.replace(ASSERTION, (signed) => {
        const forged = forge(signed).replace('</saml:Issuer>', `</saml:Issuer>${signatureOf(signed)}`);
        return forged.replace('</saml:Assertion>', `${signed.replace(SIGNATURE, '')}</saml:Assertion>`);
      });
    await refused(signIn(new SamlProtocol(makeContext()), {}, edit), /signature is invalid/);
  });

  it("when a forged assertion takes the genuine one's ID and the genuine one moves to Extensions (XSW), then it is refused", async () => {
    const edit = (xml: string) => {
      const signed = assertionOf(xml);
      const id = / ID="([^"]+)"/.exec(signed)?.[1] ?? '';
      const forged = forge(signed, id).replace('</saml:Issuer>', `</saml:Issuer>${signatureOf(signed)}`);
      return xml
        .replace(signed, forged)
        .replace('<samlp:Status>', `<samlp:Extensions>${signed}</samlp:Extensions><samlp:Status>`);
    };
    await refused(signIn(new SamlProtocol(makeContext()), {}, edit), /signature is invalid/);
  });

  it('when the assertion is unsigned though the envelope is signed, then it is refused (signed assertions required)', async () => {
    const options = { signAssertion: false, signResponse: true };
    await refused(signIn(new SamlProtocol(makeContext()), options), /signature is invalid/);
  });

  it('when nothing is signed, then it is refused', async () => {
    const options = { signAssertion: false, signResponse: false };
    await refused(signIn(new SamlProtocol(makeContext()), options), /signature is invalid/);
  });

  it("when the assertion is signed by another key under the IdP's name, then it is refused", async () => {
    const attacker = createSamlIdp({ keyPem: pems.attackerKey, certificatePem: pems.attackerCert });
    const protocol = new SamlProtocol(makeContext());
    const connection = makeConnection();
    const { secrets } = await protocol.begin(connection, 'state-1');
    const response = await attacker.loginResponse({
      spEntityId: SP,
      acsUrl: ACS,
      inResponseTo: secrets.requestId,
      nameId: 'x',
      attributes: OKTA,
    });
    await refused(protocol.complete(connection, callback(response), secrets), /signature is invalid/);
  });

  it('when the audience is another service provider, then it is refused', async () => {
    const options = { audience: 'https://other-sp.test/metadata' };
    await refused(signIn(new SamlProtocol(makeContext()), options), /another service provider/);
  });

  it('when the assertion expired beyond the two-minute skew, then it is refused', async () => {
    const now = Date.now();
    const options = { notBefore: new Date(now - 15 * 60_000), notOnOrAfter: new Date(now - 3 * 60_000) };
    await refused(signIn(new SamlProtocol(makeContext()), options), /expired/);
  });

  it('when the assertion expired within the skew, then it is still accepted (clock drift)', async () => {
    const options = { notOnOrAfter: new Date(Date.now() - 60_000) };
    assert.equal((await signIn(new SamlProtocol(makeContext()), options)).email, 'ada@example.org');
  });

  it('when InResponseTo names another request, or none, then it is refused', async () => {
    const protocol = new SamlProtocol(makeContext());
    await refused(signIn(protocol, { inResponseTo: '_another-request' }), /does not answer this sign-in/);
    await refused(signIn(protocol, { inResponseTo: undefined }), /does not answer this sign-in/);
  });

  it('when the same response is posted twice, then the second is refused as a replay', async () => {
    const context = makeContext();
    const protocol = new SamlProtocol(context);
    const connection = makeConnection();
    const { secrets } = await protocol.begin(connection, 'state-1');
    const notOnOrAfter = new Date(Date.now() + 5 * 60_000);
    const response = await idp.loginResponse({
      spEntityId: SP,
      acsUrl: ACS,
      inResponseTo: secrets.requestId,
      nameId: 'okta-00u1',
      attributes: OKTA,
      assertionId: '_assertion-1',
      notOnOrAfter,
    });
    await protocol.complete(connection, callback(response), secrets);
    await refused(protocol.complete(connection, callback(response), secrets), /already used/);
    const seen = (context.replayCache as MemoryReplayCache).seen;
    // Remembered as long as node-saml would accept it: NotOnOrAfter plus the skew.
    assert.deepEqual([...seen], [['saml:conn-1:_assertion-1', new Date(notOnOrAfter.getTime() + 120_000)]]);
  });

  it('when the assertion comes from another issuer, is for another ACS, or has no e-mail, then it is refused', async () => {
    const protocol = new SamlProtocol(makeContext());
    await refused(signIn(protocol, { issuer: 'https://other-idp.test' }), /another issuer/);
    await refused(signIn(protocol, { acsUrl: 'https://elsewhere.test/acs' }), /another address/);
    await refused(signIn(protocol, { attributes: { firstName: 'Ada' } }), /no e-mail/);
  });

  it('when the form has no SAMLResponse, then it is refused', async () => {
    const protocol = new SamlProtocol(makeContext());
    await refused(protocol.complete(makeConnection(), { url: new URL(ACS), form: {} }, { requestId: '_x' }), /missing/);
  });
});

describe('SAML adapter: IdP-initiated', () => {
  const unsolicited = (options: Partial<LoginResponseOptions> = {}) =>
    idp.loginResponse({ spEntityId: SP, acsUrl: ACS, nameId: 'okta-00u1', attributes: OKTA, ...options });

  it('when the connection allows it and the response answers no request, then it is accepted', async () => {
    const connection = makeConnection({ allowIdpInitiated: true });
    const profile = await new SamlProtocol(makeContext()).complete(connection, callback(await unsolicited()), null);
    assert.equal(profile.email, 'ada@example.org');
  });

  it('when the connection does not allow it, then it is refused', async () => {
    const protocol = new SamlProtocol(makeContext());
    await refused(protocol.complete(makeConnection(), callback(await unsolicited()), null), /started at the identity/);
  });

  it('when allowed but the response claims to answer a request, then it is refused', async () => {
    const connection = makeConnection({ allowIdpInitiated: true });
    const response = await unsolicited({ inResponseTo: '_some-request' });
    await refused(new SamlProtocol(makeContext()).complete(connection, callback(response), null), /did not make/);
  });

  it('when what was posted is no SAML response, then it is named so, not refused as a sign-in started at the IdP', async () => {
    const protocol = new SamlProtocol(makeContext());
    const garbage = { url: new URL(ACS), form: { SAMLResponse: Buffer.from('hello').toString('base64') } };
    await refused(protocol.complete(makeConnection(), garbage, null), /not a SAML response/);
    const otherXml = { url: new URL(ACS), form: { SAMLResponse: Buffer.from('<a>b</a>').toString('base64') } };
    await refused(protocol.complete(makeConnection(), otherXml, null), /not a SAML response/);
  });

  it('when allowed, a replayed unsolicited response is still refused', async () => {
    const protocol = new SamlProtocol(makeContext());
    const connection = makeConnection({ allowIdpInitiated: true });
    const response = await unsolicited();
    await protocol.complete(connection, callback(response), null);
    await refused(protocol.complete(connection, callback(response), null), /already used/);
  });
});

const blank: SamlSettings = { idpEntityId: '', idpSsoUrl: '', idpCertificate: '' };

async function validationFailed(promise: Promise<unknown>, field: string, message: RegExp) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, 'validation_failed');
    const found = error.extras.errors?.find((e) => e.field === field);
    assert.ok(found, `expected an error on ${field}: ${JSON.stringify(error.extras.errors)}`);
    assert.match(found.message, message);
    return true;
  });
}

describe('SAML adapter: prepare', () => {
  let metadata: { url: string; close(): Promise<void> };
  before(async () => {
    metadata = await idp.serveMetadata();
  });
  after(() => metadata.close());

  it('when a metadata URL is given, then entity id, Redirect SSO URL and signing certificate are filled from it', async () => {
    const settings = await new SamlProtocol(makeContext()).prepare({ ...blank, idpMetadataUrl: metadata.url }, null);
    assert.equal(settings.idpEntityId, idp.entityId);
    assert.equal(settings.idpSsoUrl, idp.ssoUrl, 'HTTP-Redirect preferred over the POST endpoint listed first');
    assert.equal(settings.idpMetadataUrl, metadata.url);
    assert.equal(
      new X509Certificate(settings.idpCertificate).fingerprint256,
      new X509Certificate(pems.idpCert).fingerprint256,
    );
  });

  it('when the explicit entity id disagrees with the metadata, then it is refused', async () => {
    const settings = { ...blank, idpEntityId: 'https://another-idp.test', idpMetadataUrl: metadata.url };
    await validationFailed(new SamlProtocol(makeContext()).prepare(settings, null), 'settings.idpEntityId', /metadata/);
  });

  it('when the metadata URL is refused by the outbound guard or answers 404, then it is named', async () => {
    const protocol = new SamlProtocol(makeContext());
    const field = 'settings.idpMetadataUrl';
    await validationFailed(
      protocol.prepare({ ...blank, idpMetadataUrl: 'https://10.0.0.1/m' }, null),
      field,
      /loopback/,
    );
    const missing = metadata.url.replace('/metadata', '/nothing');
    await validationFailed(protocol.prepare({ ...blank, idpMetadataUrl: missing }, null), field, /HTTP 404/);
  });

  it('when the certificate is a bare base64 body, then it is accepted and normalised to PEM', async () => {
    const body = pems.idpCert.replace(/-----[A-Z ]+-----|\s/g, '');
    const settings = await new SamlProtocol(makeContext()).prepare(
      { idpEntityId: idp.entityId, idpSsoUrl: idp.ssoUrl, idpCertificate: body },
      null,
    );
    assert.match(settings.idpCertificate, /^-----BEGIN CERTIFICATE-----\n/);
    assert.equal(
      new X509Certificate(settings.idpCertificate).fingerprint256,
      new X509Certificate(pems.idpCert).fingerprint256,
    );
  });

  it('when the certificate expired, or is not a certificate, then it is refused', async () => {
    const protocol = new SamlProtocol(makeContext());
    const base = { idpEntityId: idp.entityId, idpSsoUrl: idp.ssoUrl };
    const field = 'settings.idpCertificate';
    await validationFailed(
      protocol.prepare({ ...base, idpCertificate: pems.expiredCert }, null),
      field,
      /^expired on 2024-03-01$/,
    );
    await validationFailed(
      protocol.prepare({ ...base, idpCertificate: 'not a certificate' }, null),
      field,
      /not a valid X.509/,
    );
  });

  it('when the SSO URL is plain http and insecure http is not allowed, then it is refused; allowed in development', async () => {
    const settings = {
      idpEntityId: idp.entityId,
      idpSsoUrl: 'http://idp.example.test/sso',
      idpCertificate: pems.idpCert,
    };
    const strict = new SamlProtocol(makeContext({ allowInsecureHttp: false }));
    await validationFailed(strict.prepare(settings, null), 'settings.idpSsoUrl', /https/);
    assert.equal((await new SamlProtocol(makeContext()).prepare(settings, null)).idpSsoUrl, settings.idpSsoUrl);
  });

  it('when the entity id is empty and the SSO URL relative, then both are named', async () => {
    const settings = { idpEntityId: ' ', idpSsoUrl: '/sso', idpCertificate: pems.idpCert };
    const promise = new SamlProtocol(makeContext()).prepare(settings, null);
    await validationFailed(promise, 'settings.idpEntityId', /required/);
    await validationFailed(promise, 'settings.idpSsoUrl', /absolute/);
  });
});

describe('SAML adapter: test and SP metadata', () => {
  it('when the certificate has long to live, then ok with the days remaining', async () => {
    const result = await new SamlProtocol(makeContext()).test(makeConnection());
    assert.equal(result.ok, true);
    assert.match(result.detail, /valid for \d{5} more days/);
  });

  it('when the certificate expires within 30 days, then ok with a warning; once expired, not ok', async () => {
    const validTo = new Date(new X509Certificate(pems.idpCert).validTo);
    const clock = new ManualClock(new Date(validTo.getTime() - 10.5 * 86_400_000));
    const protocol = new SamlProtocol(makeContext({ clock }));
    const soon = await protocol.test(makeConnection());
    assert.equal(soon.ok, true);
    assert.match(soon.detail, /^Warning: .* expires in 10 days/);
    clock.advance(11 * 86_400_000);
    const expired = await protocol.test(makeConnection());
    assert.equal(expired.ok, false);
    assert.match(expired.detail, /expired on/);
  });

  it('when the SSO URL is malformed, then not ok', async () => {
    const connection = makeConnection();
    connection.settings = { ...connection.settings, idpSsoUrl: 'idp.example.test/sso' };
    const result = await new SamlProtocol(makeContext()).test(connection);
    assert.equal(result.ok, false);
    assert.match(result.detail, /SSO URL must be an absolute URL/);
  });

  it('when SP metadata is generated, then it names our entity id and ACS; signed with our certificate when we sign', () => {
    const unsigned = new SamlProtocol(makeContext()).serviceProviderMetadata(makeConnection());
    assert.match(unsigned, new RegExp(`entityID="${SP}"`));
    assert.match(unsigned, new RegExp(`Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${ACS}"`));
    assert.match(unsigned, /WantAssertionsSigned="true"/);
    assert.doesNotMatch(unsigned, /Signature/);
    const context = makeContext({ spSigning: { privateKey: pems.spKey, certificate: pems.spCert } });
    const signed = new SamlProtocol(context).serviceProviderMetadata(makeConnection());
    assert.match(signed, /AuthnRequestsSigned="true"/);
    assert.match(signed, /<(ds:)?Signature/);
    const body = pems.spCert.replace(/-----[A-Z ]+-----|\s/g, '');
    assert.ok(signed.replace(/\s/g, '').includes(body), 'our signing certificate is published');
  });
});
