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
import { Organization } from '../organizations/index.ts';
import { findUserRow } from '../users/index.ts';
import { ImpersonationSession } from './impersonation-session.model.ts';
import { toImpersonationSessionDto, type ImpersonationSessionDto } from './impersonation.mapper.ts';
import {
  closeExpiredSessions,
  endSessions,
  findOpenSessionsWithParties,
  findSessionWithParties,
  recordRequest,
  requestCounts,
  type ImpersonatedRequest,
  type SessionWithParties,
} from './impersonation.repository.ts';

const HOUR_MS = 3600_000;

/**
 * Why a session may not go on (null: it may). The start rules, applied to the parties as they are now:
 * checked only at the start, a member promoted to platform admin mid-session would lend the admin's
 * token their new rights, and a demoted admin's session would come back with their role.
 */
export function revocationOf({ admin, target }: Pick<SessionWithParties, 'admin' | 'target'>): string | null {
  if (!admin || admin.status !== 'active' || admin.role !== 'ROLE_PLATFORM_ADMIN')
    return 'the administrator is no longer an active platform admin';
  if (!target) return 'the user was deleted';
  const rank = PRIVILEGE[target.role as keyof typeof PRIVILEGE] ?? Number.POSITIVE_INFINITY;
  if (rank >= PRIVILEGE[admin.role as keyof typeof PRIVILEGE])
    return `the user is now ${target.role}, of equal or higher privilege`;
  if (target.status !== 'active') return `the user is ${target.status}`;
  if (target.organizationSuspended) return "the user's organization is suspended";
  return null;
}

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
      // the token would answer 403 organization_suspended to every request, ending the session included
      const organization = target.organizationId
        ? await Organization.findByPk(target.organizationId, { attributes: ['status'], transaction })
        : null;
      if (organization?.status === 'suspended')
        throw errors.unprocessable(`${target.email} cannot be impersonated: their organization is suspended`);
      await this.closeExpired({ adminId: actor.id }, transaction);
      // a change that bypassed the model hooks (a directory's SQL) must not hold the admin's one open session
      await this.endRevokedSessions({ userId: actor.id }, transaction);
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

  /**
   * Ends the open sessions whose admin or target no longer meets the start rules, recording why. The
   * model hooks call it in the transaction of the user or organization change; the minute job and the
   * start call it too, for changes made without the models.
   */
  async endRevokedSessions(
    where: { userId?: string; organizationId?: string } = {},
    transaction?: Transaction,
  ): Promise<number> {
    const open = await findOpenSessionsWithParties(this.deps.sequelize, where, transaction);
    const revoked = new Map<string, string>();
    for (const found of open) {
      const cause = revocationOf(found);
      if (cause) revoked.set(found.session.id, cause);
    }
    return this.endBecause(revoked, transaction);
  }

  /** Ends sessions for the given causes (by session id), each with its audit entry, in one transaction. */
  private async endBecause(causes: Map<string, string>, transaction?: Transaction): Promise<number> {
    if (causes.size === 0) return 0;
    if (!transaction) return this.deps.sequelize.transaction((own) => this.endBecause(causes, own));
    const closed = await endSessions([...causes.keys()], this.deps.clock.now(), transaction);
    for (const session of closed) await this.auditEnd(session, undefined, transaction, causes.get(session.id));
    return closed.length;
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
    revokedBecause?: string,
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
          ...(revokedBecause ? { revokedBecause } : {}),
        },
      },
      transaction,
    );
  }

  /**
   * The AuthService's guard: an impersonation token works only while its session is open and its
   * parties still meet the start rules; one read by primary keys a request.
   */
  async assertTokenUsable(claims: TokenClaims): Promise<void> {
    const found = claims.sid ? await findSessionWithParties(this.deps.sequelize, claims.sid) : null;
    if (!found || found.session.adminId !== claims.act?.sub || found.session.targetUserId !== claims.sub) {
      throw errors.unauthenticated('The impersonation token does not match a session');
    }
    if (found.session.endedAt) throw errors.unauthenticated('The impersonation session has ended');
    if (found.session.expiresAt.getTime() <= this.deps.clock.now().getTime())
      throw new AppError('token_expired', 'The impersonation session has expired');
    const cause = revocationOf(found);
    if (cause) {
      // a safety net for changes the model hooks did not see: the session ends for good, so the
      // token stays refused even if the change is undone
      await this.endBecause(new Map([[found.session.id, cause]]));
      throw errors.unauthenticated(`The impersonation session has ended: ${cause}`);
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
      ended: { endReason: ['exited', 'revoked'] },
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
