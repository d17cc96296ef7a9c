// A browser's SSO login, start to finish. GET /auth/sso finds the connection (by id, by organization,
// or by the e-mail's domain), records the login in a sealed single-use state and sends the browser to
// the IdP (or the identity service). The IdP's answer comes back to /auth/callback/idp (OIDC and the
// identity service: code and state) or to the connection's ACS (SAML: a signed response); the protocol
// verifies it, the account service signs the person in, and the browser is sent into the app with a
// one-time code, never a token: the app exchanges the code at POST /api/auth/sso/token. Every login
// and every refused login is in the audit trail.
import { Op, type Order } from 'sequelize';
import { randomToken } from '../../shared/crypto.ts';
import { isUuid } from '../../shared/uuid.ts';
import type { Clock } from '../../shared/clock.ts';
import { type Actor, systemActor } from '../../shared/access/actor.ts';
import { HOME_PORTAL } from '../../shared/access/roles.ts';
import { AppError } from '../../shared/errors.ts';
import type { Logger } from '../../shared/logger.ts';
import type { AuditService } from '../audit/index.ts';
import type { AuthService, Session } from '../auth/index.ts';
import { Organization } from '../organizations/index.ts';
import { User } from '../users/index.ts';
import type { IdentityServiceSettingsService } from './identity-service-settings.service.ts';
import { AccountNotAvailable, actorForUser, type SsoAccountService } from './sso-account.service.ts';
import { SsoConnection } from './sso-connection.model.ts';
import type { SsoConnectionService } from './sso-connection.service.ts';
import type { CallbackInput } from './protocols/sso-protocol.ts';
import type { SsoSingleUseStore } from './sso-single-use.store.ts';

/** A login must come back within this time (an IdP's MFA prompt included). */
const STATE_TTL_SECONDS = 10 * 60;
/** The app exchanges its one-time code right after the redirect. */
const HANDOFF_TTL_SECONDS = 60;

export interface LoginRequest {
  connection?: string;
  organization?: string;
  email?: string;
  returnTo?: string;
}

export interface SsoLoginDeps {
  clock: Clock;
  logger: Logger;
  audit: AuditService;
  auth: Pick<AuthService, 'sessionFor'>;
  connections: SsoConnectionService;
  accounts: SsoAccountService;
  store: SsoSingleUseStore;
  identityService: Pick<IdentityServiceSettingsService, 'current'>;
  /** Where the browser may be sent back: BASE_URL and the portals (an open redirect is refused). */
  allowedOrigins: string[];
  portals: Record<'member' | 'client' | 'sponsor' | 'admin', string>;
}

const invalid = (detail: string) => new AppError('invalid_connection', detail);
/** Of an organization's active connections, the one a login without a named connection takes. */
const OLDEST_FIRST: Order = [
  ['createdAt', 'ASC'],
  ['id', 'ASC'],
];

export class SsoLoginService {
  constructor(private readonly deps: SsoLoginDeps) {}

  /** Where to send the browser to sign in. */
  async begin(request: LoginRequest): Promise<string> {
    const connection = await this.resolve(request);
    const returnTo = this.safeReturnTo(request.returnTo);
    const protocol = this.deps.connections.protocolOf(connection.protocol);
    const target = this.deps.connections.forProtocol(connection);
    const state = randomToken(32);
    const start = await protocol.begin(target as never, state);
    await this.deps.store.saveState(
      state,
      { connectionId: connection.id, secrets: start.secrets, returnTo },
      STATE_TTL_SECONDS,
    );
    return start.redirectUrl;
  }

  /** /auth/callback/idp: OIDC and the identity service come back with `code` and `state`. */
  async completeRedirect(url: URL): Promise<string> {
    const state = url.searchParams.get('state');
    const saved = state ? await this.deps.store.takeState(state) : null;
    if (!saved)
      throw new AppError('sso_login_failed', 'This sign-in link is unknown, expired or already used; start again');
    const connection = await this.usable(saved.connectionId);
    return this.finish(connection, { url, form: {} }, saved.secrets, saved.returnTo);
  }

  /** The SAML ACS of one connection: a response to our request (RelayState is its state) or IdP-initiated. */
  async completeSaml(connectionId: string, url: URL, form: Record<string, string>): Promise<string> {
    if (!isUuid(connectionId)) throw invalid('There is no such SSO connection');
    const relayState = form.RelayState;
    const saved = relayState ? await this.deps.store.takeState(relayState) : null;
    if (saved && saved.connectionId !== connectionId)
      throw new AppError('sso_login_failed', 'The response arrived at another connection than the one that asked');
    const connection = await this.usable(connectionId);
    if (connection.protocol !== 'saml') throw invalid('This connection does not use SAML');
    return this.finish(connection, { url, form }, saved?.secrets ?? null, saved?.returnTo ?? null);
  }

  /** POST /api/auth/sso/token: the one-time code for a session. */
  async exchange(code: string): Promise<Session> {
    const handoff = await this.deps.store.takeHandoff(code);
    if (!handoff) throw new AppError('sso_login_failed', 'This sign-in code is unknown, expired or already used');
    const user = await User.findByPk(handoff.userId);
    if (!user || user.status !== 'active') throw new AppError('account_inactive', 'The account cannot log in');
    return this.deps.auth.sessionFor(user, handoff.mfa, 'sso');
  }

  /** SAML: the service provider's metadata XML of a connection (public: IdPs fetch it). */
  async metadata(connectionId: string): Promise<string> {
    const connection = isUuid(connectionId) ? await SsoConnection.findByPk(connectionId) : null;
    if (!connection || connection.protocol !== 'saml') throw invalid('There is no such SAML connection');
    const saml = this.deps.connections.protocolOf('saml');
    return saml.serviceProviderMetadata(this.deps.connections.forProtocol<'saml'>(connection));
  }

  private async finish(
    connection: SsoConnection,
    input: CallbackInput,
    secrets: Record<string, string> | null,
    returnTo: string | null,
  ): Promise<string> {
    const protocol = this.deps.connections.protocolOf(connection.protocol);
    try {
      const profile = await protocol.complete(this.deps.connections.forProtocol(connection) as never, input, secrets);
      const { user, created } = await this.deps.accounts.signIn(connection, profile);
      const code = await this.deps.store.saveHandoff(
        { userId: user.id, connectionId: connection.id, mfa: profile.mfa },
        HANDOFF_TTL_SECONDS,
      );
      await this.audit(actorForUser(user), connection, 'sso.login', { userId: user.id, created, mfa: profile.mfa });
      const target = new URL(returnTo ?? this.deps.portals[HOME_PORTAL[user.role]]);
      target.searchParams.set('sso_code', code);
      return target.toString();
    } catch (error) {
      const detail = error instanceof AppError ? error.message : 'unexpected error';
      if (!(error instanceof AppError))
        this.deps.logger.error({ err: error, connectionId: connection.id }, 'SSO login failed');
      const note = error instanceof AccountNotAvailable ? error.auditNote : {};
      await this.audit(systemActor(connection.organizationId), connection, 'sso.login_failed', {
        reason: detail,
        ...note,
      });
      throw error;
    }
  }

  private audit(
    actor: Actor,
    connection: SsoConnection,
    action: string,
    after: Record<string, unknown>,
  ): Promise<void> {
    return this.deps.audit.record(actor, {
      action,
      targetType: 'sso_connection',
      targetId: connection.id,
      organizationId: connection.organizationId,
      after: { protocol: connection.protocol, ...after },
    });
  }

  /** The connection a login starts with: named, or the organization's, or the e-mail domain's, or the platform default. */
  private async resolve(request: LoginRequest): Promise<SsoConnection> {
    if (request.connection) {
      if (!isUuid(request.connection)) throw invalid('There is no such SSO connection');
      return this.usable(request.connection);
    }
    if (request.email) {
      const domain = request.email.trim().toLowerCase().split('@').pop() ?? '';
      // one organization may list a domain on two connections (moving to another IdP): the older signs it in
      const found = await SsoConnection.findOne({
        where: { status: 'active', domains: { [Op.contains]: [domain] } },
        order: OLDEST_FIRST,
      });
      if (!found) throw invalid(`No SSO connection signs in ${domain} addresses`);
      return this.usable(found.id);
    }
    if (request.organization) {
      const key = request.organization.trim();
      const organization = await Organization.findOne({
        where: isUuid(key) ? { id: key } : { slug: key.toLowerCase() },
      });
      const found =
        organization &&
        (await SsoConnection.findOne({
          where: { organizationId: organization.id, status: 'active' },
          order: OLDEST_FIRST,
        }));
      if (!found) throw invalid('This organization has no active SSO connection');
      return this.usable(found.id);
    }
    const platform = await this.deps.identityService.current();
    const fallback = platform?.defaultConnection;
    const found =
      fallback &&
      (await SsoConnection.findOne({
        where: { protocol: 'identity_service', status: 'active', settings: { connection: fallback } },
      }));
    if (!found) throw invalid('Say which organization, connection or e-mail address to sign in with');
    return this.usable(found.id);
  }

  /** An active connection of an active organization, or "Invalid connection". */
  private async usable(id: string): Promise<SsoConnection> {
    const connection = await SsoConnection.findByPk(id);
    if (!connection) throw invalid('There is no such SSO connection');
    if (connection.status !== 'active') throw invalid('This SSO connection is not enabled');
    const organization = await Organization.findByPk(connection.organizationId, { attributes: ['status'] });
    if (organization?.status !== 'active') throw invalid("This SSO connection's organization is suspended");
    return connection;
  }

  /** Only addresses of this deployment and its portals: anything else would be an open redirect. */
  private safeReturnTo(returnTo: string | undefined): string | null {
    if (!returnTo) return null;
    try {
      const url = new URL(returnTo);
      if (this.deps.allowedOrigins.includes(url.origin)) return url.toString();
    } catch {}
    throw new AppError('validation_failed', 'return_to must be an address of this service or its portals', {
      errors: [{ field: 'return_to', message: 'is not an address of this service or its portals' }],
    });
  }
}
