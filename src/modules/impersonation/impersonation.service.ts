// Support staff acting as a user: a short-lived token for the target carrying the admin (`act`),
// read-only unless asked otherwise, every request logged, at most N sessions per admin per hour.
import { Op, type Sequelize, type Transaction } from 'sequelize';
import type { Config } from '../../config.ts';
import type { Actor, ImpersonationMode } from '../../shared/access/actor.ts';
import { assertCan, assertMfa } from '../../shared/access/policy.ts';
import { HOME_PORTAL, PRIVILEGE } from '../../shared/access/roles.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError, errors } from '../../shared/errors.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import type { AuditService } from '../audit/index.ts';
import type { IssuedToken, TokenClaims, TokenService } from '../auth/index.ts';
import type { MailService } from '../mail/index.ts';
import { findUserRow } from '../users/index.ts';
import { ImpersonationSession } from './impersonation-session.model.ts';
import { toImpersonationSessionDto, type ImpersonationSessionDto } from './impersonation.mapper.ts';
import {
  closeExpiredSessions,
  findSessionWithAdmin,
  recordRequest,
  requestCounts,
  type ImpersonatedRequest,
} from './impersonation.repository.ts';

const HOUR_MS = 3600_000;

export interface StartedImpersonation {
  token: IssuedToken;
  redirectUrl: string;
  session: ImpersonationSessionDto;
}

export interface SessionFilter {
  adminId?: string;
  targetUserId?: string;
  status?: 'active' | 'ended' | 'expired';
}

export class ImpersonationService {
  constructor(
    private readonly deps: {
      sequelize: Sequelize;
      clock: Clock;
      tokens: TokenService;
      audit: AuditService;
      mail: MailService;
      config: Pick<Config, 'impersonation' | 'portals'>;
    },
  ) {}

  async start(
    actor: Actor,
    targetUserId: string,
    input: { mode?: ImpersonationMode; reason?: string } = {},
  ): Promise<StartedImpersonation> {
    // first: an impersonation token carries the target's role, which would otherwise read as a plain 403
    if (actor.impersonation)
      throw new AppError('already_impersonating', 'End the current impersonation before starting another');
    assertCan(actor, 'users:admin');
    assertMfa(actor);
    const { clock, config, sequelize } = this.deps;
    const mode = input.mode ?? 'read_only';
    const { session, target } = await sequelize.transaction(async (transaction) => {
      // one start at a time per admin, so two concurrent starts cannot both slip under the limit
      await sequelize.query('SELECT pg_advisory_xact_lock(hashtext($1))', {
        bind: [`impersonation:${actor.id}`],
        transaction,
      });
      const now = clock.now();
      const target = await findUserRow(sequelize, targetUserId, { transaction });
      const admin = await findUserRow(sequelize, actor.id, { transaction });
      if (!target) throw errors.notFound('User', targetUserId);
      if (
        target.id === actor.id ||
        target.role === 'ROLE_PLATFORM_ADMIN' ||
        PRIVILEGE[target.role] >= PRIVILEGE[actor.role as keyof typeof PRIVILEGE]
      ) {
        throw new AppError(
          'impersonation_forbidden',
          `${target.email} (${target.role}) cannot be impersonated: platform admins and users of equal or higher privilege are excluded`,
        );
      }
      if (target.status !== 'active')
        throw errors.unprocessable(`${target.email} is ${target.status}; only active users can be impersonated`);
      await this.closeExpired({ adminId: actor.id }, transaction);
      if (await ImpersonationSession.count({ where: { adminId: actor.id, endedAt: { [Op.is]: null } }, transaction })) {
        throw new AppError(
          'already_impersonating',
          'You have an open impersonation session; end it with DELETE /api/admin/impersonate first',
        );
      }
      await this.assertUnderHourlyLimit(actor.id, now, transaction);
      const session = await ImpersonationSession.create(
        {
          adminId: actor.id,
          targetUserId: target.id,
          mode,
          reason: input.reason ?? null,
          startedAt: now,
          expiresAt: new Date(now.getTime() + config.impersonation.ttlSeconds * 1000),
        },
        { transaction },
      );
      await this.deps.audit.record(
        actor,
        {
          action: 'impersonation.started',
          targetType: 'user',
          targetId: target.id,
          organizationId: target.organizationId,
          after: { sessionId: session.id, mode, reason: session.reason, expiresAt: session.expiresAt.toISOString() },
        },
        transaction,
      );
      if (config.impersonation.notifyTarget) {
        const adminName = admin ? `${admin.firstName} ${admin.lastName}` : 'A platform administrator';
        await this.deps.mail.send(
          { address: target.email, userId: target.id },
          {
            template: 'impersonation_notice',
            data: {
              firstName: target.firstName,
              adminName,
              startedAt: now,
              expiresAt: session.expiresAt,
              mode,
              reason: session.reason,
            },
          },
          transaction,
        );
      }
      return { session, target };
    });
    const claims: TokenClaims = {
      sub: target.id,
      org: target.organizationId,
      roles: [target.role],
      amr: ['pwd'],
      act: { sub: actor.id },
      sid: session.id,
      mode,
    };
    const token = await this.deps.tokens.issue(claims, config.impersonation.ttlSeconds);
    return {
      token,
      redirectUrl: config.portals[HOME_PORTAL[target.role]],
      session: toImpersonationSessionDto(session, 0, clock.now()),
    };
  }

  private async assertUnderHourlyLimit(adminId: string, now: Date, transaction: Transaction): Promise<void> {
    const { maxPerHour } = this.deps.config.impersonation;
    const recent = await ImpersonationSession.findAll({
      attributes: ['startedAt'],
      where: { adminId, startedAt: { [Op.gt]: new Date(now.getTime() - HOUR_MS) } },
      order: [['startedAt', 'ASC']],
      transaction,
    });
    if (recent.length < maxPerHour) return;
    // a new start becomes possible when enough of the recent ones have left the sliding hour
    const freesUpAt = recent[recent.length - maxPerHour]!.startedAt.getTime() + HOUR_MS;
    throw errors.tooManyRequests(
      'impersonation_limit',
      (freesUpAt - now.getTime()) / 1000,
      `At most ${maxPerHour} impersonation sessions per hour`,
    );
  }

  /**
   * Ends the session of an impersonation token, or the admin's own open session when called with
   * the admin's token.
   */
  async end(actor: Actor): Promise<{ session: ImpersonationSessionDto; returnUrl: string }> {
    const adminId = actor.impersonation?.impersonatorId ?? actor.id;
    if (!actor.impersonation) assertCan(actor, 'users:admin');
    await this.closeExpired({ adminId });
    const ended = await this.deps.sequelize.transaction(async (transaction) => {
      const session = await ImpersonationSession.findOne({
        where: {
          adminId,
          endedAt: { [Op.is]: null },
          ...(actor.impersonation ? { id: actor.impersonation.sessionId } : {}),
        },
        lock: transaction.LOCK.UPDATE,
        transaction,
      });
      if (!session) throw new AppError('not_impersonating', 'There is no open impersonation session');
      await session.update({ endedAt: this.deps.clock.now(), endReason: 'exited' }, { transaction });
      await this.auditEnd(session, actor.requestId, transaction);
      return session;
    });
    const counts = await requestCounts(this.deps.sequelize, [ended.id]);
    return {
      session: toImpersonationSessionDto(ended, counts.get(ended.id) ?? 0, this.deps.clock.now()),
      returnUrl: `${this.deps.config.portals.admin}/resources/users`,
    };
  }

  /** Closes sessions past their expiry and records their end (the sweep job, and before starts and ends). */
  async closeExpired(where: { adminId?: string } = {}, transaction?: Transaction): Promise<number> {
    const closed = await closeExpiredSessions(this.deps.clock.now(), where, transaction);
    for (const session of closed) await this.auditEnd(session, undefined, transaction);
    return closed.length;
  }

  private async auditEnd(
    session: ImpersonationSession,
    requestId: string | undefined,
    transaction?: Transaction,
  ): Promise<void> {
    const counts = await requestCounts(this.deps.sequelize, [session.id], transaction);
    const dto = toImpersonationSessionDto(session, counts.get(session.id) ?? 0, this.deps.clock.now());
    const admin: Actor = {
      type: 'user',
      id: session.adminId,
      organizationId: null,
      role: 'ROLE_PLATFORM_ADMIN',
      mfaVerified: true,
      requestId,
    };
    await this.deps.audit.record(
      admin,
      {
        action: 'impersonation.ended',
        targetType: 'user',
        targetId: session.targetUserId,
        after: {
          sessionId: session.id,
          endReason: dto.endReason,
          endedAt: dto.endedAt,
          durationSeconds: dto.durationSeconds,
          requestCount: dto.requestCount,
        },
      },
      transaction,
    );
  }

  /** The AuthService's guard: an impersonation token works only while its session is open. */
  async assertTokenUsable(claims: TokenClaims): Promise<void> {
    const found = claims.sid ? await findSessionWithAdmin(this.deps.sequelize, claims.sid) : null;
    if (!found || found.session.adminId !== claims.act?.sub || found.session.targetUserId !== claims.sub) {
      throw errors.unauthenticated('The impersonation token does not match a session');
    }
    if (found.session.endedAt) throw errors.unauthenticated('The impersonation session has ended');
    if (found.session.expiresAt.getTime() <= this.deps.clock.now().getTime())
      throw new AppError('token_expired', 'The impersonation session has expired');
    if (found.admin?.status !== 'active' || found.admin.role !== 'ROLE_PLATFORM_ADMIN') {
      throw errors.unauthenticated('The impersonating administrator may no longer impersonate');
    }
  }

  /** The HTTP guard's log of each request made with an impersonation token. */
  async recordRequest(entry: ImpersonatedRequest): Promise<void> {
    await recordRequest(entry);
  }

  async list(actor: Actor, filter: SessionFilter, page: PageRequest): Promise<Page<ImpersonationSessionDto>> {
    assertCan(actor, 'users:read');
    const now = this.deps.clock.now();
    const open = { endedAt: { [Op.is]: null } };
    const byStatus = {
      active: { ...open, expiresAt: { [Op.gt]: now } },
      ended: { endReason: 'exited' },
      expired: { [Op.or]: [{ endReason: 'expired' }, { ...open, expiresAt: { [Op.lte]: now } }] },
    };
    const { rows, count } = await ImpersonationSession.findAndCountAll({
      where: {
        ...(filter.adminId ? { adminId: filter.adminId } : {}),
        ...(filter.targetUserId ? { targetUserId: filter.targetUserId } : {}),
        ...(filter.status ? byStatus[filter.status] : {}),
      },
      order: [
        ['startedAt', 'DESC'],
        ['id', 'ASC'],
      ],
      limit: page.itemsPerPage,
      offset: offsetOf(page),
    });
    const counts = await requestCounts(
      this.deps.sequelize,
      rows.map((r) => r.id),
    );
    return pageOf(
      rows.map((r) => toImpersonationSessionDto(r, counts.get(r.id) ?? 0, now)),
      count,
      page,
    );
  }
}
