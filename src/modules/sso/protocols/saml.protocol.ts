// SAML 2.0 straight to an organization's IdP (Entra ID, Okta, ADFS, Google...): SP-initiated over the
// Redirect binding, responses over POST. node-saml checks signatures, audience, validity and
// InResponseTo; this adapter adds what it leaves out (replay, issuer, recipient, IdP-initiated rules) and
// maps the signed assertion, never the unsigned envelope, to a profile.
import {
  type CacheProvider,
  generateServiceProviderMetadata,
  type Profile,
  SAML,
  type SamlConfig,
  SamlStatusError,
  ValidateInResponseTo,
} from '@node-saml/node-saml';
import { XMLParser } from 'fast-xml-parser';
import { AppError } from '../../../shared/errors.ts';
import { profileFromClaims, type SsoProfile } from '../sso-claims.ts';
import { certificatePem, checkSettings, parseCertificates, prepareSettings, validityProblem } from './saml-metadata.ts';
import type {
  CallbackInput,
  LoginStart,
  ProtocolConnection,
  ProtocolContext,
  SamlSettings,
  SsoProtocol,
} from './sso-protocol.ts';

/** IdP and server clocks drift; two minutes absorbs ordinary NTP drift without stretching a stolen assertion. */
const CLOCK_SKEW_MS = 120_000;
/** How long a login may take at the IdP (MFA prompts included) before its AuthnRequest is stale. */
const REQUEST_TTL_MS = 10 * 60_000;

const fail = (detail: string, cause?: unknown) => new AppError('sso_login_failed', detail, {}, { cause });

export class SamlProtocol implements SsoProtocol<'saml'> {
  constructor(private readonly context: ProtocolContext) {}

  /**
   * With `idpMetadataUrl`, the metadata is the source of truth for the SSO URL and certificates, so saving
   * again picks up a rotated certificate; an explicit entity id that differs is refused (it means the
   * wrong metadata). Expired certificates are dropped when another one is valid (a rollover bundle).
   */
  prepare(settings: SamlSettings, _secret: string | null): Promise<SamlSettings> {
    return prepareSettings(settings, this.context);
  }

  /** Offline: the certificate's remaining validity and the SSO URL's shape (the IdP may not be reachable from here). */
  async test(connection: ProtocolConnection<'saml'>): Promise<{ ok: boolean; detail: string }> {
    return checkSettings(connection.settings, this.context);
  }

  async begin(connection: ProtocolConnection<'saml'>, state: string): Promise<LoginStart> {
    const issued: { requestId?: string; requestedAt?: string } = {};
    // node-saml saves the AuthnRequest id through its cache; we keep it in the sealed state record instead,
    // so any instance can finish the login and the id is single-use with the state.
    const recorder: CacheProvider = {
      saveAsync: async (key, value) => {
        issued.requestId = key;
        issued.requestedAt = value;
        return { value, createdAt: Date.now() };
      },
      getAsync: async () => null,
      removeAsync: async () => null,
    };
    const saml = this.saml(connection, ValidateInResponseTo.always, recorder);
    const redirectUrl = await saml.getAuthorizeUrlAsync(state, undefined, {});
    if (!issued.requestId || !issued.requestedAt) throw new Error('node-saml did not save the AuthnRequest id');
    return { redirectUrl, secrets: { requestId: issued.requestId, requestedAt: issued.requestedAt } };
  }

  async complete(
    connection: ProtocolConnection<'saml'>,
    input: CallbackInput,
    saved: Record<string, string> | null,
  ): Promise<SsoProfile> {
    const samlResponse = input.form.SAMLResponse;
    if (!samlResponse) throw fail('The SAML response is missing');
    if (saved === null) this.checkIdpInitiated(connection, samlResponse);
    const saml = saved
      ? this.saml(connection, ValidateInResponseTo.always, answering(saved))
      : this.saml(connection, ValidateInResponseTo.never);
    let profile: Profile | null;
    try {
      ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: samlResponse }));
    } catch (error) {
      throw fail(describeFailure(error), error);
    }
    if (!profile?.getAssertionXml) throw fail('The SAML response carries no assertion');
    // Read from the XML node-saml verified: a wrapped, unsigned assertion never gets this far.
    const assertion = readAssertion(profile.getAssertionXml());
    this.checkAssertion(connection, assertion);
    const until = new Date(Math.max(...assertion.notOnOrAfter.map((at) => at.getTime())) + CLOCK_SKEW_MS);
    const first = await this.context.replayCache.remember(`saml:${connection.id}:${assertion.id}`, until);
    if (!first) throw fail('This assertion was already used');
    if (!profile.nameID) throw fail('The SAML assertion names no subject (NameID)');
    const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
    const mapped = profileFromClaims(profile.nameID, attributes, assertion.authnContexts);
    if (mapped.email === '') throw fail('The identity provider sent no e-mail address: map an email attribute');
    return mapped;
  }

  /** Our SP metadata for the IdP administrator: entity id, ACS, and our signing certificate when we sign. */
  serviceProviderMetadata(connection: ProtocolConnection<'saml'>): string {
    const signing = this.context.spSigning;
    return generateServiceProviderMetadata({
      issuer: connection.urls.spEntityId,
      callbackUrl: connection.urls.acsUrl,
      identifierFormat: null,
      wantAssertionsSigned: true,
      ...(signing
        ? {
            privateKey: signing.privateKey,
            publicCerts: signing.certificate,
            signMetadata: true,
            signatureAlgorithm: 'sha256' as const,
            digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
          }
        : {}),
    });
  }

  private saml(connection: ProtocolConnection<'saml'>, inResponseTo: ValidateInResponseTo, cache?: CacheProvider) {
    const { settings, urls } = connection;
    const signing = this.context.spSigning;
    const config: SamlConfig = {
      entryPoint: settings.idpSsoUrl,
      issuer: urls.spEntityId,
      callbackUrl: urls.acsUrl,
      idpCert: this.trustedCertificates(settings.idpCertificate),
      audience: urls.spEntityId,
      // The assertion must be signed; the envelope may not be (Entra's and Okta's default).
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      acceptedClockSkewMs: CLOCK_SKEW_MS,
      validateInResponseTo: inResponseTo,
      requestIdExpirationPeriodMs: REQUEST_TTL_MS,
      // The NameID is an opaque subject and the e-mail comes from attributes, so let the IdP pick the
      // format: a required one makes ADFS and Entra refuse apps set up for another.
      identifierFormat: null,
      // node-saml otherwise asks for password authentication exactly, and Entra refuses users who signed
      // in another way (AADSTS75011: certificate, passwordless, MFA).
      disableRequestedAuthnContext: true,
      ...(cache ? { cacheProvider: cache } : {}),
      ...(signing
        ? { privateKey: signing.privateKey, publicCert: signing.certificate, signatureAlgorithm: 'sha256' }
        : {}),
    };
    return new SAML(config);
  }

  /**
   * node-saml verifies with any key it is given, expired or not; an expired IdP certificate makes the
   * connection unusable (as the catalog says) until its successor is imported, rather than trusted forever.
   */
  private trustedCertificates(idpCertificate: string): string[] {
    const now = this.context.clock.now();
    let certificates: ReturnType<typeof parseCertificates>;
    try {
      certificates = parseCertificates(idpCertificate);
    } catch (error) {
      throw new AppError(
        'invalid_connection',
        'The IdP certificate of this connection cannot be read',
        {},
        { cause: error },
      );
    }
    const current = certificates.filter((certificate) => validityProblem(certificate, now) === null);
    if (current.length === 0) {
      const problem = validityProblem(certificates[0], now) ?? 'is not valid';
      throw new AppError('invalid_connection', `The IdP certificate of this connection ${problem}`);
    }
    return current.map(certificatePem);
  }

  /** A response nobody asked for (an app tile in the IdP's portal): allowed per connection, never as an answer. */
  private checkIdpInitiated(connection: ProtocolConnection<'saml'>, samlResponse: string): void {
    // read first: what is no SAML response is said to be so, not refused as an IdP-initiated sign-in
    const answersARequest = claimsInResponseTo(samlResponse);
    if (!connection.allowIdpInitiated) {
      throw fail('This connection does not accept sign-in started at the identity provider; start from our login page');
    }
    // It claims to answer a request, but not one this browser's state knows: a response stolen from
    // another login, or our state lost. Either way it is not an IdP-initiated login.
    if (answersARequest) throw fail('The SAML response answers a sign-in request we did not make');
  }

  private checkAssertion(connection: ProtocolConnection<'saml'>, assertion: SignedAssertion): void {
    // node-saml checks only a logout's issuer; the certificate alone would accept any entity sharing it.
    if (assertion.issuer !== connection.settings.idpEntityId)
      throw fail('The SAML assertion comes from another issuer');
    // node-saml leaves Recipient unchecked: it binds a bearer assertion to the ACS it was issued for.
    if (assertion.recipients.length > 0 && !assertion.recipients.includes(connection.urls.acsUrl)) {
      throw fail('The SAML assertion was issued for another address');
    }
    // The Web SSO profile requires an expiry on bearer assertions; without one a replay could never be forgotten.
    if (assertion.notOnOrAfter.length === 0) throw fail('The SAML assertion has no expiry (NotOnOrAfter)');
    if (assertion.id === '') throw fail('The SAML assertion has no ID');
  }
}

/** A cache that knows only the request this login made, so no other request id is accepted. */
function answering(saved: Record<string, string>): CacheProvider {
  const createdAt = saved.requestedAt ?? new Date().toISOString();
  return {
    saveAsync: async () => null,
    getAsync: async (key) => (key === saved.requestId ? createdAt : null),
    removeAsync: async () => null,
  };
}

/** A short reason safe to show the person signing in: no XML, no values from the response. */
function describeFailure(error: unknown): string {
  if (error instanceof SamlStatusError) {
    const status = /returned (\w+) error/.exec(error.message)?.[1] ?? 'an';
    return `The identity provider refused the sign-in (${status} status)`;
  }
  const message = error instanceof Error ? error.message : '';
  if (/InResponseTo/i.test(message)) return 'The SAML response does not answer this sign-in request';
  if (/signature/i.test(message)) return 'The SAML response is not signed, or its signature is invalid';
  // node-saml skips subject confirmations outside their validity window, so "no valid subject confirmation"
  // means expired as well.
  if (/expired|not yet valid|subject confirmation/i.test(message)) {
    return 'The SAML assertion has expired or is not yet valid';
  }
  if (/audience/i.test(message)) return 'The SAML assertion is meant for another service provider';
  if (/assertion/i.test(message)) return 'The SAML response carries no usable assertion';
  return 'The SAML response could not be verified';
}

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  htmlEntities: false,
  isArray: (name) => ['Assertion', 'AuthnStatement', 'SubjectConfirmation', 'AuthnContextClassRef'].includes(name),
});

type XmlNode = Record<string, unknown>;
const list = (value: unknown): XmlNode[] => (Array.isArray(value) ? value : value ? [value] : []) as XmlNode[];
const text = (value: unknown): string =>
  typeof value === 'object' && value ? String((value as XmlNode)['#text'] ?? '') : String(value ?? '');

/** Unverified: only to refuse, never to accept. */
function claimsInResponseTo(samlResponse: string): boolean {
  let doc: XmlNode;
  try {
    doc = xml.parse(Buffer.from(samlResponse, 'base64').toString('utf8')) as XmlNode;
  } catch (error) {
    throw fail('The SAML response is not well-formed XML', error);
  }
  if (!doc || typeof doc !== 'object' || !doc.Response) throw fail('The SAMLResponse is not a SAML response message');
  const response = doc.Response as XmlNode;
  const confirmations = list(response.Assertion).flatMap((a) => list((a.Subject as XmlNode)?.SubjectConfirmation));
  return (
    response['@InResponseTo'] !== undefined ||
    confirmations.some((c) => (c.SubjectConfirmationData as XmlNode)?.['@InResponseTo'] !== undefined)
  );
}

interface SignedAssertion {
  id: string;
  issuer: string;
  recipients: string[];
  notOnOrAfter: Date[];
  authnContexts: string[];
}

function readAssertion(assertionXml: string): SignedAssertion {
  const assertion = list((xml.parse(assertionXml) as XmlNode).Assertion)[0] ?? {};
  const confirmationData = list((assertion.Subject as XmlNode)?.SubjectConfirmation).flatMap((c) =>
    list(c.SubjectConfirmationData),
  );
  const expiries = [
    (assertion.Conditions as XmlNode)?.['@NotOnOrAfter'],
    ...confirmationData.map((d) => d['@NotOnOrAfter']),
  ]
    .filter((value): value is string => typeof value === 'string')
    .map((value) => new Date(value))
    .filter((date) => !Number.isNaN(date.getTime()));
  return {
    id: String(assertion['@ID'] ?? ''),
    issuer: text(assertion.Issuer).trim(),
    recipients: confirmationData.map((d) => d['@Recipient']).filter((r): r is string => typeof r === 'string'),
    notOnOrAfter: expiries,
    authnContexts: list(assertion.AuthnStatement)
      .flatMap((statement) => list((statement.AuthnContext as XmlNode)?.AuthnContextClassRef))
      .map((ref) => text(ref).trim())
      .filter((ref) => ref !== ''),
  };
}
