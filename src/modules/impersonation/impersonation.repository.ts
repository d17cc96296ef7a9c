// Session bookkeeping shared by the service, the token guard, the request log and the sweep job.
import { Op, QueryTypes, type InferAttributes, type Sequelize, type Transaction } from 'sequelize';
import { ImpersonationRequest } from './impersonation-request.model.ts';
import { ImpersonationSession } from './impersonation-session.model.ts';

/** A party's current standing: what the start rules look at. */
export interface Standing {
  status: string;
  role: string;
  /** The user's organization is suspended (false for platform admins, who have none). */
  organizationSuspended: boolean;
}

export interface SessionWithParties {
  session: ImpersonationSession;
  /** The impersonating admin's current standing; null when the account is gone (deleted or purged). */
  admin: Standing | null;
  /** The target's current standing; null when the account is gone. */
  target: Standing | null;
}

type PartyColumns = {
  adminStatus: string | null;
  adminRole: string | null;
  targetStatus: string | null;
  targetRole: string | null;
  targetOrganizationStatus: string | null;
};

// primary-key joins only: this runs at every request made with an impersonation token
const SESSIONS_WITH_PARTIES = `SELECT s.id, s.admin_id AS "adminId", s.target_user_id AS "targetUserId", s.mode, s.reason,
            s.started_at AS "startedAt", s.expires_at AS "expiresAt", s.ended_at AS "endedAt", s.end_reason AS "endReason",
            a.status AS "adminStatus", a.role AS "adminRole", t.status AS "targetStatus", t.role AS "targetRole",
            o.status AS "targetOrganizationStatus"
       FROM impersonation_sessions s
       LEFT JOIN users a ON a.id = s.admin_id AND a.deleted_at IS NULL
       LEFT JOIN users t ON t.id = s.target_user_id AND t.deleted_at IS NULL
       LEFT JOIN organizations o ON o.id = t.organization_id`;

function toSessionWithParties(row: PartyColumns & InferAttributes<ImpersonationSession>): SessionWithParties {
  const { adminStatus, adminRole, targetStatus, targetRole, targetOrganizationStatus, ...attributes } = row;
  const session = ImpersonationSession.build(attributes, { isNewRecord: false, raw: true });
  return {
    session,
    admin: adminStatus && adminRole ? { status: adminStatus, role: adminRole, organizationSuspended: false } : null,
    target:
      targetStatus && targetRole
        ? { status: targetStatus, role: targetRole, organizationSuspended: targetOrganizationStatus === 'suspended' }
        : null,
  };
}

export async function findSessionWithParties(
  sequelize: Sequelize,
  sessionId: string,
): Promise<SessionWithParties | null> {
  const rows = await sequelize.query<PartyColumns & InferAttributes<ImpersonationSession>>(
    `${SESSIONS_WITH_PARTIES} WHERE s.id = $1`,
    { bind: [sessionId], type: QueryTypes.SELECT },
  );
  return rows[0] ? toSessionWithParties(rows[0]) : null;
}

/**
 * Open sessions with both parties' standing: all of them, those a user takes part in (as admin or
 * target), or those whose target belongs to an organization. At most one is open per admin, so the
 * unfiltered form reads few rows.
 */
export async function findOpenSessionsWithParties(
  sequelize: Sequelize,
  where: { userId?: string; organizationId?: string },
  transaction?: Transaction,
): Promise<SessionWithParties[]> {
  const bind: string[] = [];
  let filter = '';
  if (where.userId) filter += ` AND (s.admin_id = $${bind.push(where.userId)} OR s.target_user_id = $${bind.length})`;
  if (where.organizationId) filter += ` AND t.organization_id = $${bind.push(where.organizationId)}`;
  const rows = await sequelize.query<PartyColumns & InferAttributes<ImpersonationSession>>(
    `${SESSIONS_WITH_PARTIES} WHERE s.ended_at IS NULL${filter}`,
    { bind, type: QueryTypes.SELECT, transaction },
  );
  return rows.map(toSessionWithParties);
}

/** Ends the given sessions now, unless something else ended them first. Returns the sessions it closed. */
export async function endSessions(
  sessionIds: string[],
  now: Date,
  transaction?: Transaction,
): Promise<ImpersonationSession[]> {
  if (sessionIds.length === 0) return [];
  // `revoked`: the rules it started under no longer hold; which one is in the audit entry
  const [, closed] = await ImpersonationSession.update(
    { endedAt: now, endReason: 'revoked' },
    { where: { id: sessionIds, endedAt: { [Op.is]: null } }, returning: true, transaction },
  );
  return closed;
}

/** Marks sessions past their expiry as ended (at their expiry). Returns the sessions it closed. */
export async function closeExpiredSessions(
  now: Date,
  where: { adminId?: string },
  transaction?: Transaction,
): Promise<ImpersonationSession[]> {
  const [, closed] = await ImpersonationSession.update(
    { endedAt: ImpersonationSession.sequelize!.col('expires_at') as unknown as Date, endReason: 'expired' },
    { where: { endedAt: { [Op.is]: null }, expiresAt: { [Op.lte]: now }, ...where }, returning: true, transaction },
  );
  return closed;
}

export async function requestCounts(
  sequelize: Sequelize,
  sessionIds: string[],
  transaction?: Transaction,
): Promise<Map<string, number>> {
  if (sessionIds.length === 0) return new Map();
  const rows = await sequelize.query<{ session_id: string; count: string }>(
    'SELECT session_id, count(*) AS count FROM impersonation_requests WHERE session_id = ANY($1::uuid[]) GROUP BY session_id',
    { bind: [sessionIds], type: QueryTypes.SELECT, transaction },
  );
  return new Map(rows.map((r) => [r.session_id, Number(r.count)]));
}

export interface ImpersonatedRequest {
  sessionId: string;
  adminId: string;
  targetUserId: string;
  method: string;
  path: string;
  statusCode: number;
  requestId: string | null;
  occurredAt: Date;
}

export async function recordRequest(entry: ImpersonatedRequest): Promise<void> {
  await ImpersonationRequest.create(entry);
}
