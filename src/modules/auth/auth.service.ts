import { Sequelize } from 'sequelize';
import type { Role } from '../../shared/access/roles.ts';
import type { Sql } from '../../shared/sql.ts';
import type { Config, Plan } from '../../config.ts';
import type { Actor } from '../../shared/access/actor.ts';
import type { Clock } from '../../shared/clock.ts';
import { decrypt, encrypt, verifyPassword } from '../../shared/crypto.ts';
import { AppError, errors } from '../../shared/errors.ts';
import type { ApiKeyService } from '../api-keys/index.ts';
import type { AuditService } from '../audit/index.ts';
import { Organization } from '../organizations/index.ts';
import { User } from '../users/index.ts';
import { BriefCache } from '../../shared/brief-cache.ts';
import { LoginThrottle } from './login-throttle.ts';
import { newTotpSecret, otpauthUri, totpStep } from './mfa.ts';
import type { IssuedToken, TokenClaims, TokenService } from './token.service.ts';

export interface Authenticated {
  actor: Actor;
  /** The plan of the actor's organization, for rate limiting. */
  plan?: Plan;
}

export interface Session extends IssuedToken {
  user: User;
  mfaVerified: boolean;
}

/** Checks an impersonation session behind a token is still open (the impersonation module sets it). */
export type ImpersonationGuard = (claims: TokenClaims) => Promise<void>;

interface AuthUserRow {
  id: string;
  organization_id: string | null;
  role: Role;
  status: string;
  plan: Plan | null;
  organization_status: string | null;
}

const suspended = () =>
  new AppError('organization_suspended', 'Your organization is suspended; contact the platform administrators');

/** By the environment a key's prefix names, when it is not this deployment's. */
const WRONG_ENVIRONMENT = {
  sandbox: 'This API key (gh_test_) belongs to the sandbox environment; this deployment serves the live one',
  production: 'This API key (gh_live_) belongs to the live environment; this deployment serves the sandbox one',
} as const;
const invalidCode = () => new AppError('invalid_mfa_code', 'The one-time code is not valid');

/** One count of failures per account, whichever step they were made at (login or MFA step-up). */
const throttleKeyOf = (email: string) => `login:${email.toLowerCase()}`;

/** A rule another module adds to password logins (SSO's "require SSO"); throws to refuse. */
export type PasswordLoginCheck = (user: User) => Promise<void>;

/** The `amr` methods of a token that count as multi-factor (a password and code, or an IdP's MFA). */
const MFA_METHODS = new Set(['otp', 'mfa']);

export class AuthService {
  private readonly userCache = new BriefCache<AuthUserRow>();
  private readonly passwordLoginChecks: PasswordLoginCheck[] = [];
  private readonly throttle: LoginThrottle;
  private impersonationGuard: ImpersonationGuard = async () => {
    throw errors.unauthenticated('Impersonation is not available');
  };

  constructor(
    private readonly deps: {
      config: Config;
      clock: Clock;
      tokens: TokenService;
      apiKeys: ApiKeyService;
      audit: AuditService;
      secretsKey: Buffer;
      sequelize: Sequelize;
      sql: Sql;
    },
  ) {
    const { maxFailures, windowSeconds } = deps.config.loginThrottle;
    this.throttle = new LoginThrottle({
      sequelize: deps.sequelize,
      sql: deps.sql,
      clock: deps.clock,
      maxFailures,
      windowSeconds,
    });
  }

  setImpersonationGuard(guard: ImpersonationGuard): void {
    this.impersonationGuard = guard;
  }

  addPasswordLoginCheck(check: PasswordLoginCheck): void {
    this.passwordLoginChecks.push(check);
  }

  async login(input: { email: string; password: string; otp?: string }): Promise<Session> {
    const { clock } = this.deps;
    const throttleKey = throttleKeyOf(input.email);
    const attempt = await this.takeAttempt(throttleKey);

    const user = await User.findOne({
      where: Sequelize.where(Sequelize.fn('lower', Sequelize.col('email')), input.email.toLowerCase()),
    });
    const passwordOk = await verifyPassword(input.password, user?.passwordHash);
    // a wrong guess: the attempt taken stands as its failure
    if (!user || !passwordOk) throw new AppError('invalid_credentials', 'E-mail or password is incorrect');
    try {
      await this.assertMayLogIn(user);
    } catch (error) {
      await this.throttle.release(attempt); // the password was right: not a failed guess
      throw error;
    }

    let mfaVerified = false;
    if (input.otp !== undefined) {
      // a wrong code is a failed guess: the attempt stands
      if (!user.mfaEnabledAt || !(await this.acceptCode(user, input.otp))) throw invalidCode();
      mfaVerified = true;
    } else if (user.mfaEnabledAt) {
      // Once MFA is enabled the password alone opens nothing, here as in the Admin Portal (which shows
      // this detail). Not a failed guess: the password was right, so the attempt is given back.
      await this.throttle.release(attempt);
      const detail = 'Enter the one-time code from your authenticator app (MFA is enabled: the login needs `otp`)';
      throw new AppError('invalid_mfa_code', detail);
    }
    await this.throttle.lift(throttleKey);
    await user.update({ lastLoginAt: clock.now() });
    return this.sessionFor(user, mfaVerified);
  }

  /** What refuses a user whose password was right: the account's or organization's status, or a module's rule (SSO). */
  private async assertMayLogIn(user: User): Promise<void> {
    if (user.status !== 'active')
      throw new AppError('account_inactive', `The account is ${user.status} and cannot log in`);
    if (
      user.organizationId &&
      (await Organization.findByPk(user.organizationId, { attributes: ['status'] }))?.status === 'suspended'
    )
      throw suspended();
    for (const check of this.passwordLoginChecks) await check(user);
  }

  /** Resolves a bearer credential (API key or JWT) to the actor it stands for. */
  async authenticate(bearer: string, requestId: string): Promise<Authenticated> {
    if (bearer.startsWith('gh_')) {
      const other = this.deps.apiKeys.otherEnvironmentOf(bearer);
      if (other) throw errors.unauthenticated(WRONG_ENVIRONMENT[other]);
      const found = await this.deps.apiKeys.authenticate(bearer);
      if (!found) throw errors.unauthenticated('The API key is not valid or has been revoked');
      if (found.organizationSuspended) throw suspended();
      return {
        actor: {
          type: 'api_key',
          id: found.apiKeyId,
          organizationId: found.organizationId,
          role: 'API_KEY',
          mfaVerified: false,
          requestId,
        },
        plan: found.plan,
      };
    }
    const claims = await this.deps.tokens.verify(bearer);
    // The account must still exist and be active.
    const user = await this.lookUpUser(claims.sub);
    if (!user || user.status !== 'active') throw errors.unauthenticated('The account is no longer active');
    if (user.organization_status === 'suspended') throw suspended();
    if (claims.act) await this.impersonationGuard(claims);
    const actor: Actor = {
      type: 'user',
      id: user.id,
      organizationId: user.organization_id,
      role: user.role,
      mfaVerified: claims.amr?.some((method) => MFA_METHODS.has(method)) ?? false,
      requestId,
      ...(claims.act && claims.sid
        ? { impersonation: { sessionId: claims.sid, impersonatorId: claims.act.sub, mode: claims.mode ?? 'read_only' } }
        : {}),
    };
    return { actor, plan: user.plan ?? undefined };
  }

  /** One indexed lookup, remembered briefly (see BriefCache); dropped when the user changes. */
  private lookUpUser(id: string): Promise<AuthUserRow | undefined> {
    return this.userCache.get(id, () =>
      this.deps.sql.one<AuthUserRow>(
        `SELECT u.id, u.organization_id, u.role, u.status, o.plan, o.status AS organization_status
           FROM users u LEFT JOIN organizations o ON o.id = u.organization_id
          WHERE u.id = $1 AND u.deleted_at IS NULL`,
        [id],
      ),
    );
  }

  /** Called when a user row changes (model hooks), so this instance stops trusting the cached copy. */
  forgetUser(id?: string): void {
    if (id) this.userCache.delete(id);
    else this.userCache.clear();
  }

  async currentUser(actor: Actor): Promise<User> {
    if (actor.type !== 'user') throw errors.forbidden('This operation needs a user token, not an API key');
    const user = await User.findByPk(actor.id);
    if (!user) throw errors.unauthenticated();
    return user;
  }

  async enrollMfa(actor: Actor): Promise<{ secret: string; otpauthUri: string }> {
    const user = await this.currentUser(actor);
    if (actor.impersonation) throw errors.forbidden('MFA cannot be changed while impersonating');
    if (user.mfaEnabledAt) throw new AppError('mfa_already_enabled', 'MFA is already enabled for this account');
    const secret = newTotpSecret();
    await user.update({ mfaSecret: encrypt(this.deps.secretsKey, secret) });
    await this.deps.audit.record(actor, {
      action: 'user.mfa_enrollment_started',
      targetType: 'user',
      targetId: user.id,
    });
    return { secret, otpauthUri: otpauthUri(secret, user.email) };
  }

  async verifyMfa(actor: Actor, code: string): Promise<Session> {
    const user = await this.currentUser(actor);
    if (actor.impersonation) throw errors.forbidden('MFA cannot be verified while impersonating');
    if (!user.mfaSecret) throw errors.conflict('MFA is not enrolled; start with POST /api/auth/mfa/enrollment');
    // Six digits are guessable: wrong codes here count with the failed logins of the same account,
    // or a holder of a password-only token (or the portal session) could try codes without limit.
    const throttleKey = throttleKeyOf(user.email);
    await this.takeAttempt(throttleKey);
    if (!(await this.acceptCode(user, code))) throw invalidCode(); // the attempt stands as its failure
    await this.throttle.lift(throttleKey);
    if (!user.mfaEnabledAt) {
      await user.update({ mfaEnabledAt: this.deps.clock.now() });
      await this.deps.audit.record(actor, { action: 'user.mfa_enabled', targetType: 'user', targetId: user.id });
    }
    return this.sessionFor(user, true);
  }

  /**
   * A login's token. `amr` (RFC 8176) says how: `pwd` (+ `otp`) for a password (and a code); `fed` (a
   * federated sign-in, as Entra ID writes it; + `mfa` when the IdP asserted one) for SSO.
   */
  async sessionFor(user: User, mfaVerified: boolean, via: 'password' | 'sso' = 'password'): Promise<Session> {
    const amr = via === 'sso' ? ['fed', ...(mfaVerified ? ['mfa'] : [])] : ['pwd', ...(mfaVerified ? ['otp'] : [])];
    const issued = await this.deps.tokens.issue({ sub: user.id, org: user.organizationId, roles: [user.role], amr });
    return { ...issued, user, mfaVerified };
  }

  /** Lifts the login throttle of an e-mail (an operator who reset the account's password). */
  async liftLoginThrottle(email: string): Promise<void> {
    await this.throttle.lift(throttleKeyOf(email));
  }

  /** Takes one of the account's attempts before its password or code is checked: 429 when none is left. */
  private async takeAttempt(throttleKey: string): Promise<string> {
    const attempt = await this.throttle.take(throttleKey);
    if (!attempt.taken) throw errors.tooManyRequests('login_throttled', attempt.retryAfter);
    return attempt.id;
  }

  /**
   * Whether the code is valid and newer than the last one accepted for the user, recording its time
   * step if so. RFC 6238 §5.2: a code seen once (over a shoulder, by a phishing proxy) must not open a
   * second session. One conditional upsert, so two requests racing with the same code cannot both win.
   */
  private async acceptCode(user: User, code: string): Promise<boolean> {
    if (!user.mfaSecret) return false;
    const step = totpStep(this.secretOf(user), code, this.deps.clock.now());
    if (step === null) return false;
    const accepted = await this.deps.sql.one<{ step: string }>(
      `INSERT INTO totp_last_steps (user_id, step) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET step = EXCLUDED.step WHERE totp_last_steps.step < EXCLUDED.step
       RETURNING step`,
      [user.id, step],
    );
    return accepted !== undefined;
  }

  private secretOf(user: User): string {
    return decrypt(this.deps.secretsKey, user.mfaSecret!);
  }
}
