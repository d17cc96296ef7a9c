import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../shared/logger.ts';

/**
 * One JSON line per request, with the request id. Hand-written rather than pino-http: that builds a
 * child logger and serialises req/res for every request even when the level drops the line, which
 * cost ~10% of a request's CPU in the benchmark.
 */
export function requestLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const level = res.statusCode >= 500 ? 'error' : 'info';
      if (!logger.isLevelEnabled(level) || req.path === '/health' || req.path === '/ready') return;
      logger[level](
        {
          requestId: req.context.requestId,
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
          actor: req.context.actor ? `${req.context.actor.type}:${req.context.actor.id}` : undefined,
        },
        'request',
      );
    });
    next();
  };
}
