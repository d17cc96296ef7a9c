import type { NextFunction, Request, Response } from 'express';
import type { ImpersonatedRequest } from '../modules/impersonation/impersonation.repository.ts';
import type { Clock } from '../shared/clock.ts';
import { AppError } from '../shared/errors.ts';
import type { Logger } from '../shared/logger.ts';

export type RequestRecorder = (entry: ImpersonatedRequest) => Promise<void>;

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
const MAX_PATH = 2000;
const START_SESSION = /^\/api\/admin\/users\/[^/]+\/impersonate$/;

/**
 * For requests made with an impersonation token: a read-only session refuses every write, whatever
 * module it targets (ending the session is the one write it may make), and every request is logged
 * with both identities once its answer is known.
 */
export function impersonationGuard(record: RequestRecorder, clock: Clock, logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const actor = req.context.actor;
    const session = actor?.impersonation;
    if (!actor || !session) return next();
    const occurredAt = clock.now();
    res.once('close', () => {
      // a client that hung up before the answer was complete is logged as 499, like nginx does
      const statusCode = res.writableFinished ? res.statusCode : 499;
      record({
        sessionId: session.sessionId,
        adminId: session.impersonatorId,
        targetUserId: actor.id,
        method: req.method,
        path: req.originalUrl.slice(0, MAX_PATH),
        statusCode,
        requestId: req.context.requestId,
        occurredAt,
      }).catch((error) =>
        logger.error({ err: error, requestId: req.context.requestId }, 'could not log an impersonated request'),
      );
    });
    const endsSession = req.method === 'DELETE' && req.path === '/api/admin/impersonate';
    // starting another is refused by the impersonation service as 409 already_impersonating, whatever the mode
    const startsSession = req.method === 'POST' && START_SESSION.test(req.path);
    if (session.mode === 'read_only' && !READS.has(req.method) && !endsSession && !startsSession) {
      throw new AppError(
        'read_only_impersonation',
        'This impersonation session is read-only; start one with mode act_as_user to make changes',
      );
    }
    next();
  };
}
