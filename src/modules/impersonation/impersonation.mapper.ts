import type { components } from '../../types/openapi.d.ts';
import type { ImpersonationSession } from './impersonation-session.model.ts';

export type ImpersonationSessionDto = components['schemas']['ImpersonationSession'];

/**
 * A session past its expiry reads as expired (ended at its expiry) even before the sweep job has
 * closed it, so the answer never depends on when the job last ran.
 */
export function toImpersonationSessionDto(
  session: ImpersonationSession,
  requestCount: number,
  now: Date,
): ImpersonationSessionDto {
  const expired = !session.endedAt && session.expiresAt.getTime() <= now.getTime();
  const endedAt = session.endedAt ?? (expired ? session.expiresAt : null);
  const endReason = session.endReason ?? (expired ? 'expired' : null);
  return {
    id: session.id,
    adminId: session.adminId,
    targetUserId: session.targetUserId,
    mode: session.mode,
    reason: session.reason,
    status: endReason === 'expired' ? 'expired' : endedAt ? 'ended' : 'active',
    startedAt: session.startedAt.toISOString(),
    expiresAt: session.expiresAt.toISOString(),
    endedAt: endedAt?.toISOString() ?? null,
    endReason,
    durationSeconds: endedAt ? Math.round((endedAt.getTime() - session.startedAt.getTime()) / 1000) : null,
    requestCount,
  };
}
