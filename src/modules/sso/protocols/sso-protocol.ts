// What every way of signing in (SAML 2.0, OIDC, the identity service) offers the login service: check
// its settings on save, test them live, start a login (where to send the browser, what to keep sealed
// until the browser comes back) and finish it (a verified profile, or an error). Protocol adapters know
// nothing of users, organizations or sessions; the login service does the rest.
import type { Clock } from '../../../shared/clock.ts';
import type { SsoProfile } from '../sso-claims.ts';

export type SsoProtocolKind = 'saml' | 'oidc' | 'identity_service';

/** SAML 2.0 settings of a connection (the spec's "SAML 2.0 connection details"). */
export interface SamlSettings {
  idpEntityId: string;
  idpSsoUrl: string;
  /** The IdP's signing certificate, PEM. */
  idpCertificate: string;
  /** Where the IdP's metadata was imported from, when it was. */
  idpMetadataUrl?: string;
}

/** OIDC settings (the client secret is kept apart, sealed). */
export interface OidcSettings {
  clientId: string;
  /** The well-known openid-configuration address. */
  discoveryUrl: string;
}

/** A connection brokered by the identity service: its connection (or organization) id there. */
export interface BrokeredSettings {
  connection?: string;
  organization?: string;
}

export interface SettingsByKind {
  saml: SamlSettings;
  oidc: OidcSettings;
  identity_service: BrokeredSettings;
}

/** The addresses Guildhall generates for a connection (the spec's "auto-generated" fields). */
export interface ConnectionUrls {
  /** SAML: our entity id (the metadata address). */
  spEntityId: string;
  /** SAML: the assertion consumer service (POST binding). */
  acsUrl: string;
  /** SAML: our metadata XML. */
  metadataUrl: string;
  /** OIDC and the identity service: the callback (`/auth/callback/idp`). */
  redirectUri: string;
}

/** A connection as an adapter sees it: settings, its secret unsealed, and its generated addresses. */
export interface ProtocolConnection<K extends SsoProtocolKind = SsoProtocolKind> {
  id: string;
  organizationId: string;
  settings: SettingsByKind[K];
  /** OIDC's client secret; null for the others. */
  secret: string | null;
  /** SAML: a response the IdP sends without our request (an app tile) is accepted. */
  allowIdpInitiated: boolean;
  urls: ConnectionUrls;
}

/** Remembers single-use values (SAML assertion ids) until they expire. */
export interface ReplayCache {
  /** False when the key was already seen (a replay); true the first time. */
  remember(key: string, until: Date): Promise<boolean>;
}

/** What adapters get from the platform. */
export interface ProtocolContext {
  clock: Clock;
  replayCache: ReplayCache;
  /**
   * Checks an outbound address before it is fetched (IdP metadata, OIDC discovery): the webhook SSRF
   * guard. Throws validation_failed naming `field` when it may not be fetched.
   */
  checkOutboundUrl(url: string, field: string): Promise<URL>;
  /** Plain-http issuers and loopback addresses: development and tests only (WEBHOOKS_ALLOW_PRIVATE_TARGETS). */
  allowInsecureHttp: boolean;
  /** Our SAML signing pair (PEM; SSO_SAML_SP_KEY/CERT), when configured: AuthnRequests and metadata are signed. */
  spSigning: { privateKey: string; certificate: string } | null;
}

export interface LoginStart {
  /** Where to send the browser. */
  redirectUrl: string;
  /** Kept sealed in the single-use state record and handed back to `complete` (nonce, PKCE verifier, request id). */
  secrets: Record<string, string>;
}

export interface CallbackInput {
  /** The full address the browser came back to (OIDC and the identity service: `code`, `state`, `iss`). */
  url: URL;
  /** The posted form (SAML's POST binding: `SAMLResponse`, `RelayState`). */
  form: Record<string, string>;
}

/** Throw AppError('invalid_connection') for unusable settings, AppError('sso_login_failed') for a refused login. */
export interface SsoProtocol<K extends SsoProtocolKind> {
  /**
   * Checks (and completes, e.g. from imported IdP metadata) settings on save. Throws
   * errors.validation([{ field: 'settings.<name>', message }]) naming what is wrong.
   */
  prepare(settings: SettingsByKind[K], secret: string | null): Promise<SettingsByKind[K]>;
  /** A live check of a saved connection ("test connection"): what works, or what does not. */
  test(connection: ProtocolConnection<K>): Promise<{ ok: boolean; detail: string }>;
  begin(connection: ProtocolConnection<K>, state: string): Promise<LoginStart>;
  /**
   * Verifies the callback and maps what the IdP asserted. `saved` is what `begin` kept, or null for a
   * SAML response that did not answer a request of ours (IdP-initiated).
   */
  complete(
    connection: ProtocolConnection<K>,
    input: CallbackInput,
    saved: Record<string, string> | null,
  ): Promise<SsoProfile>;
}
