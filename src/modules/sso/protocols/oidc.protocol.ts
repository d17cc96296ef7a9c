// OpenID Connect, spoken directly to the organization's IdP (authorization code flow with PKCE S256 and a
// nonce, a confidential client). openid-client checks the ID token (signature against the IdP's JWKS, iss,
// aud, exp, iat, nonce) and the callback (state, iss); this adapter maps its errors to ours and the claims to
// a profile. Discovery documents are cached per connection so a login does not refetch one every time.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import * as client from 'openid-client';
import { AppError, errors } from '../../../shared/errors.ts';
import { profileFromClaims, type SsoProfile } from '../sso-claims.ts';
import type {
  CallbackInput,
  LoginStart,
  OidcSettings,
  ProtocolConnection,
  ProtocolContext,
  SsoProtocol,
} from './sso-protocol.ts';

const SCOPE = 'openid email profile';
const WELL_KNOWN = '/.well-known/openid-configuration';
/** Seconds for each request to the IdP (discovery, token, userinfo, JWKS). */
const TIMEOUT_SECONDS = 10;
const CACHE_TTL_MS = 10 * 60 * 1000;
const FIELD = 'settings.discoveryUrl';

type Claims = Record<string, unknown>;

/**
 * Where to fetch the discovery document from. Accepted: the issuer (`https://idp.example.com/tenant`) or its
 * `<issuer>/.well-known/openid-configuration`; both are discovered from the issuer, so openid-client checks the
 * document names that issuer (OIDC Discovery 4.3) and knows Entra ID's multi-tenant `{tenantid}` issuer. Any other
 * `.well-known` address (a query string, OAuth's `oauth-authorization-server`) is fetched as given.
 * Stored normalised as the full well-known address (what `OidcSettings.discoveryUrl` documents).
 */
export function discoveryTarget(raw: string): { server: URL; wellKnown: URL } {
  const url = new URL(raw.trim());
  url.hash = '';
  if (url.pathname.endsWith(WELL_KNOWN) && url.search === '') {
    const server = new URL(url.href.slice(0, -WELL_KNOWN.length));
    return { server, wellKnown: url };
  }
  if (url.pathname.includes('/.well-known/')) return { server: url, wellKnown: url };
  const wellKnown = new URL(url.href);
  wellKnown.pathname = `${url.pathname.replace(/\/+$/, '')}${WELL_KNOWN}`;
  return { server: url, wellKnown };
}

/** The client secret goes in HTTP Basic (the OIDC default) unless the IdP only takes it in the form. */
const clientAuthentication =
  (secret: string): client.ClientAuth =>
  (as, metadata, body, headers) => {
    const methods = as.token_endpoint_auth_methods_supported;
    const postOnly = methods?.includes('client_secret_post') === true && !methods.includes('client_secret_basic');
    return (postOnly ? client.ClientSecretPost(secret) : client.ClientSecretBasic(secret))(as, metadata, body, headers);
  };

/** An OAuth error the IdP answered with (a callback error, a token or userinfo error), when it is one. */
function oauthError(err: unknown): { error: string; description?: string } | null {
  if (err instanceof client.AuthorizationResponseError || err instanceof client.ResponseBodyError) {
    return { error: err.error, description: err.error_description };
  }
  if (err instanceof client.WWWAuthenticateChallengeError) {
    // A 401 with WWW-Authenticate: client authentication (invalid_client) or a refused access token.
    const parameters = err.cause[0]?.parameters;
    return { error: parameters?.error ?? `HTTP ${err.status}`, description: parameters?.error_description };
  }
  return null;
}

/** The IdP's own words (error_description) or the library's reason, short and on one line. */
function reason(err: unknown): string {
  let text: string;
  const answered = oauthError(err);
  if (answered !== null) {
    text = answered.description ? `${answered.error}: ${answered.description}` : answered.error;
  } else if (err instanceof client.ClientError) {
    // ClientError's own message is generic ("unexpected JWT claim value encountered"); its cause names the claim.
    text = err.cause instanceof Error ? err.cause.message : err.message;
  } else if (err instanceof TypeError && err.message === 'fetch failed') {
    const code = (err.cause as { code?: unknown } | undefined)?.code;
    text = `unreachable${typeof code === 'string' ? ` (${code})` : ''}`;
  } else if (err instanceof Error && err.name === 'TimeoutError') {
    text = 'the request timed out';
  } else {
    text = 'unexpected error';
  }
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 200);
}

function loginFailed(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new AppError('sso_login_failed', `OpenID Connect login refused: ${reason(err)}`, {}, { cause: err });
}

const hasText = (value: unknown) => typeof value === 'string' && value.trim() !== '';

export class OidcProtocol implements SsoProtocol<'oidc'> {
  /** Keyed by connection, settings, secret (hashed) and clock offset; holds the pending discovery. */
  private readonly configurations = new LRUCache<string, Promise<client.Configuration>>({
    max: 1000,
    ttl: CACHE_TTL_MS,
  });

  constructor(private readonly context: ProtocolContext) {}

  async prepare(settings: OidcSettings, secret: string | null): Promise<OidcSettings> {
    const problems: { field: string; message: string }[] = [];
    const clientId = typeof settings.clientId === 'string' ? settings.clientId.trim() : '';
    if (clientId === '') problems.push({ field: 'settings.clientId', message: 'is required' });
    if (secret === null || secret.trim() === '') problems.push({ field: 'clientSecret', message: 'is required' });
    let target: ReturnType<typeof discoveryTarget> | null = null;
    try {
      target = discoveryTarget(String(settings.discoveryUrl ?? ''));
    } catch {
      problems.push({ field: FIELD, message: 'must be an absolute URL' });
    }
    if (target !== null && !this.allowedScheme(target.wellKnown)) {
      const message = this.context.allowInsecureHttp
        ? 'must use https or http'
        : 'must use https (http only with WEBHOOKS_ALLOW_PRIVATE_TARGETS=true, for development)';
      problems.push({ field: FIELD, message });
    }
    if (problems.length > 0 || target === null || secret === null) throw errors.validation(problems);

    let config: client.Configuration;
    try {
      config = await this.discover({ clientId, discoveryUrl: target.wellKnown.href }, secret);
    } catch (err) {
      if (err instanceof AppError && err.code === 'validation_failed') throw err;
      throw errors.validation([{ field: FIELD, message: `could not be discovered: ${reason(err)}` }]);
    }
    const metadata = config.serverMetadata();
    if (!metadata.authorization_endpoint || !metadata.token_endpoint) {
      throw errors.validation([{ field: FIELD, message: 'names no authorization_endpoint or token_endpoint' }]);
    }
    return { clientId, discoveryUrl: target.wellKnown.href };
  }

  async test(connection: ProtocolConnection<'oidc'>): Promise<{ ok: boolean; detail: string }> {
    let config: client.Configuration;
    try {
      config = await this.discover(connection.settings, connection.secret ?? '');
    } catch (err) {
      return { ok: false, detail: `Discovery failed: ${err instanceof AppError ? err.message : reason(err)}` };
    }
    const metadata = config.serverMetadata();
    const found = [`Issuer ${metadata.issuer}`];
    const keys = await this.countSigningKeys(metadata.jwks_uri);
    found.push(typeof keys === 'number' ? `JWKS: ${keys} key(s)` : `JWKS: ${keys}`);
    const token = await this.tryClientCredentials(config, connection);
    found.push(`token endpoint: ${token.detail}`);
    const ok = typeof keys === 'number' && keys > 0 && token.ok && !!metadata.authorization_endpoint;
    return { ok, detail: found.join('; ') };
  }

  async begin(connection: ProtocolConnection<'oidc'>, state: string): Promise<LoginStart> {
    const config = await this.configuration(connection);
    const codeVerifier = client.randomPKCECodeVerifier();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: connection.urls.redirectUri,
      scope: SCOPE,
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    // The state is kept too, so `complete` checks the callback against what was sent rather than against itself.
    return { redirectUrl: url.href, secrets: { nonce, codeVerifier, state } };
  }

  async complete(
    connection: ProtocolConnection<'oidc'>,
    input: CallbackInput,
    saved: Record<string, string> | null,
  ): Promise<SsoProfile> {
    if (saved === null || !saved.nonce || !saved.codeVerifier) {
      throw new AppError('sso_login_failed', 'OpenID Connect login refused: no login was started for this callback');
    }
    const config = await this.configuration(connection);
    // The token request's redirect_uri must be the one `begin` sent, however the callback reached us (proxies).
    const callback = new URL(connection.urls.redirectUri);
    callback.search = input.url.search;
    const expectedState = saved.state ?? input.url.searchParams.get('state') ?? '';
    try {
      const tokens = await client.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: saved.codeVerifier,
        expectedNonce: saved.nonce,
        expectedState,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims();
      if (idClaims === undefined) throw new AppError('sso_login_failed', 'OpenID Connect login refused: no ID token');
      const claims: Claims = { ...idClaims };
      const lacksNames = !hasText(claims.given_name) && !hasText(claims.family_name) && !hasText(claims.name);
      // Many IdPs (and certified OPs by default) keep scope claims out of the ID token in the code flow.
      if ((!hasText(claims.email) || lacksNames) && config.serverMetadata().userinfo_endpoint) {
        const userinfo = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
        // The signed ID token wins where both speak.
        Object.assign(claims, { ...userinfo, ...idClaims });
      }
      const profile = profileFromClaims(idClaims.sub, claims);
      if (profile.email === '') {
        throw new AppError('sso_login_failed', 'OpenID Connect login refused: the IdP sent no e-mail address');
      }
      return profile;
    } catch (err) {
      throw loginFailed(err);
    }
  }

  /** The cached Configuration of a connection; a failed discovery is not cached. */
  private async configuration(connection: ProtocolConnection<'oidc'>): Promise<client.Configuration> {
    const { settings, secret } = connection;
    const secretHash = createHash('sha256')
      .update(secret ?? '')
      .digest('base64url');
    // The clock offset is part of the key: openid-client freezes it into the Configuration (see clockSkew).
    const key = [connection.id, settings.clientId, settings.discoveryUrl, secretHash, this.clockSkew()].join('\n');
    let pending = this.configurations.get(key);
    if (pending === undefined) {
      pending = this.discover(settings, secret ?? '');
      this.configurations.set(key, pending);
      pending.catch(() => this.configurations.delete(key));
    }
    try {
      return await pending;
    } catch (err) {
      if (err instanceof AppError) throw new AppError('invalid_connection', err.message, {}, { cause: err });
      const detail = `The OpenID Connect discovery document of this connection failed: ${reason(err)}`;
      throw new AppError('invalid_connection', detail, {}, { cause: err });
    }
  }

  /** Discovery through the SSRF guard, for the document and for every endpoint we fetch ourselves. */
  private async discover(settings: OidcSettings, secret: string): Promise<client.Configuration> {
    const { server, wellKnown } = discoveryTarget(settings.discoveryUrl);
    if (!this.allowedScheme(wellKnown)) throw errors.validation([{ field: FIELD, message: 'must use https' }]);
    await this.context.checkOutboundUrl(wellKnown.href, FIELD);
    const config = await client.discovery(
      server,
      settings.clientId,
      // openid-client reads the time from Date.now(); the skew makes its checks (exp, iat) follow our clock.
      { client_secret: secret, [client.clockSkew]: this.clockSkew() },
      clientAuthentication(secret),
      { execute: this.context.allowInsecureHttp ? [client.allowInsecureRequests] : [], timeout: TIMEOUT_SECONDS },
    );
    const metadata = config.serverMetadata();
    // A discovery document could name internal addresses: those we call server-side go through the guard too.
    for (const endpoint of [metadata.token_endpoint, metadata.jwks_uri, metadata.userinfo_endpoint]) {
      if (endpoint !== undefined) await this.context.checkOutboundUrl(endpoint, FIELD);
    }
    return config;
  }

  /** Seconds between the injected clock and the system clock (0 in production, where they are the same). */
  private clockSkew(): number {
    return Math.round((this.context.clock.now().getTime() - Date.now()) / 1000);
  }

  private allowedScheme(url: URL): boolean {
    return url.protocol === 'https:' || (this.context.allowInsecureHttp && url.protocol === 'http:');
  }

  private async countSigningKeys(jwksUri: string | undefined): Promise<number | string> {
    if (jwksUri === undefined) return 'no jwks_uri';
    try {
      const response = await fetch(jwksUri, {
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_SECONDS * 1000),
      });
      if (!response.ok) return `answered HTTP ${response.status}`;
      const body = (await response.json()) as { keys?: unknown };
      return Array.isArray(body.keys) ? body.keys.length : 'not a JWK set';
    } catch (err) {
      return `unreachable (${reason(err)})`;
    }
  }

  /**
   * A code grant with a made-up code: `invalid_grant` means the endpoint answered and took our client id and
   * secret, `invalid_client` that it refused them. Nothing is issued.
   */
  private async tryClientCredentials(
    config: client.Configuration,
    connection: ProtocolConnection<'oidc'>,
  ): Promise<{ ok: boolean; detail: string }> {
    try {
      await client.genericGrantRequest(config, 'authorization_code', {
        code: 'guildhall-connection-test',
        redirect_uri: connection.urls.redirectUri,
      });
      return { ok: false, detail: 'accepted a made-up code' };
    } catch (err) {
      const answered = oauthError(err)?.error;
      if (answered === 'invalid_grant') return { ok: true, detail: 'answers and accepts the client credentials' };
      if (answered === 'invalid_client')
        return { ok: false, detail: 'refused the client id or secret (invalid_client)' };
      return { ok: false, detail: reason(err) };
    }
  }
}
