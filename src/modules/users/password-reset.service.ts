import { Op, type Sequelize, type Transaction } from 'sequelize';
import type { Config } from '../../config.ts';
import type { Actor } from '../../shared/access/actor.ts';
import { assertCan, assertMfa } from '../../shared/access/policy.ts';
import { HOME_PORTAL } from '../../shared/access/roles.ts';
import type { Clock } from '../../shared/clock.ts';
import { hashPassword, randomToken, sha256 } from '../../shared/crypto.ts';
import { AppError, errors } from '../../shared/errors.ts';
import type { AuditService } from '../audit/index.ts';
import type { MailService } from '../mail/index.ts';
import { PasswordToken, type PasswordTokenPurpose } from './password-token.model.ts';
import { User } from './user.model.ts';

export interface IssuedPasswordToken {
  url: string;
  expiresAt: Date;
}

/**
 * Single-use, expiring tokens that let a user choose a password. Only their SHA-256 is stored; the
 * link travels in the URL fragment (`#token=`), which browsers never send to a server or a log.
 */
export class PasswordResetService {
  constructor(
    private readonly deps: {
      sequelize: Sequelize;
      clock: Clock;
      audit: AuditService;
      mail: MailService;
      config: Pick<Config, 'passwords' | 'portals'>;
    },
  ) {}

  /** Issues a token and invalidates the user's earlier unused ones, in the caller's transaction. */
  async issue(user: User, purpose: PasswordTokenPurpose, transaction: Transaction): Promise<IssuedPasswordToken> {
    const now = this.deps.clock.now();
    const ttl =
      purpose === 'reset' ? this.deps.config.passwords.resetTtlSeconds : this.deps.config.passwords.setupTtlSeconds;
    const token = randomToken(32);
    const expiresAt = new Date(now.getTime() + ttl * 1000);
    await PasswordToken.update({ usedAt: now }, { where: { userId: user.id, usedAt: { [Op.is]: null } }, transaction });
    await PasswordToken.create({ userId: user.id, purpose, tokenHash: sha256(token), expiresAt }, { transaction });
    const portal = this.deps.config.portals[HOME_PORTAL[user.role]];
    return { url: `${portal}/reset-password#token=${token}`, expiresAt };
  }

  /**
   * POST /api/admin/users/{id}/reset-password. A reset link is a way into someone else's account, so
   * asking for one is as sensitive as impersonating: it needs a verified MFA step.
   */
  async requestReset(actor: Actor, userId: string): Promise<{ userId: string; expiresAt: Date }> {
    assertCan(actor, 'users:admin');
    assertMfa(actor);
    return this.deps.sequelize.transaction(async (transaction) => {
      const user = await User.findByPk(userId, { transaction });
      if (!user) throw errors.notFound('User', userId);
      const issued = await this.issue(user, 'reset', transaction);
      await this.deps.mail.send(
        { address: user.email, userId: user.id },
        {
          template: 'password_reset',
          data: { firstName: user.firstName, resetUrl: issued.url, expiresAt: issued.expiresAt },
        },
        transaction,
      );
      await this.deps.audit.record(
        actor,
        {
          action: 'user.password_reset_requested',
          targetType: 'user',
          targetId: user.id,
          organizationId: user.organizationId,
          after: { expiresAt: issued.expiresAt.toISOString() },
        },
        transaction,
      );
      return { userId: user.id, expiresAt: issued.expiresAt };
    });
  }

  /** POST /api/auth/password-reset: the token is consumed atomically, so it works exactly once. */
  async resetWithToken(input: { token: string; password: string }, requestId?: string): Promise<void> {
    const passwordHash = await hashPassword(input.password); // slow by design: before the transaction, not inside it
    await this.deps.sequelize.transaction(async (transaction) => {
      const now = this.deps.clock.now();
      const [, consumed] = await PasswordToken.update(
        { usedAt: now },
        {
          where: { tokenHash: sha256(input.token), usedAt: { [Op.is]: null }, expiresAt: { [Op.gt]: now } },
          returning: true,
          transaction,
        },
      );
      const token = consumed[0];
      const user = token ? await User.findByPk(token.userId, { transaction }) : null;
      if (!token || !user)
        throw new AppError('invalid_reset_token', 'The reset link is unknown, already used or expired');
      // the link reached the account's address: a pending account (awaiting that proof) becomes active
      const verified = user.status === 'pending';
      await user.update({ passwordHash, ...(verified ? { status: 'active' as const } : {}) }, { transaction });
      const actor: Actor = {
        type: 'user',
        id: user.id,
        organizationId: user.organizationId,
        role: user.role,
        mfaVerified: false,
        requestId,
      };
      await this.deps.audit.record(
        actor,
        {
          action: 'user.password_changed',
          targetType: 'user',
          targetId: user.id,
          after: { via: `${token.purpose}_token` },
        },
        transaction,
      );
      if (verified) {
        await this.deps.audit.record(
          actor,
          {
            action: 'user.status_changed',
            targetType: 'user',
            targetId: user.id,
            before: { status: 'pending' },
            after: { status: 'active', via: 'email_verified' },
          },
          transaction,
        );
      }
    });
  }
}
