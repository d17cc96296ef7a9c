// Session bookkeeping shared by the service, the token guard, the request log and the sweep job.
import { Op, QueryTypes, type InferAttributes, type Sequelize, type Transaction } from 'sequelize';
import { ImpersonationRequest } from './impersonation-request.model.ts';
import { ImpersonationSession } from './impersonation-session.model.ts';

export interface SessionWithAdmin {
  session: ImpersonationSession;
  /** The impersonating admin's current standing; null when the account is gone. */
  admin: { status: string; role: string } | null;
}

export async function findSessionWithAdmin(sequelize: Sequelize, sessionId: string): Promise<SessionWithAdmin | null> {
  const rows = await sequelize.query<
    { adminStatus: string | null; adminRole: string | null } & InferAttributes<ImpersonationSession>
  >(
    `SELECT s.id, s.admin_id AS "adminId", s.target_user_id AS "targetUserId", s.mode, s.reason, s.started_at AS "startedAt",
            s.expires_at AS "expiresAt", s.ended_at AS "endedAt", s.end_reason AS "endReason",
            u.status AS "adminStatus", u.role AS "adminRole"
       FROM impersonation_sessions s LEFT JOIN users u ON u.id = s.admin_id AND u.deleted_at IS NULL
      WHERE s.id = $1`,
    { bind: [sessionId], type: QueryTypes.SELECT },
  );
  const row = rows[0];
  if (!row) return null;
  const { adminStatus, adminRole, ...attributes } = row;
  const session = ImpersonationSession.build(attributes, { isNewRecord: false, raw: true });
  return { session, admin: adminStatus && adminRole ? { status: adminStatus, role: adminRole } : null };
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
