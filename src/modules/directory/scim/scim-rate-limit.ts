// SCIM's own budget, per directory and per minute (SCIM_RATE_LIMIT_PER_MINUTE), apart from the plan's
// hourly API limit: an identity provider's initial sync is thousands of requests in minutes. Counted in
// the shared limiter, so it is exact across instances; a refusal is a SCIM error (429, Retry-After).
import type { NextFunction, Request, Response } from 'express';
import { actorOf } from '../../../http/context.ts';
import { errors } from '../../../shared/errors.ts';
import type { RateLimiter } from '../../../shared/rate-limiter.ts';

const WINDOW_SECONDS = 60;

export function scimRateLimit(limiter: RateLimiter, perMinute: number) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const directoryId = actorOf(req).id;
    const state = await limiter.consume(`scim:${directoryId}`, perMinute, WINDOW_SECONDS);
    res.setHeader('RateLimit-Policy', `"scim";q=${state.limit};w=${WINDOW_SECONDS}`);
    res.setHeader('RateLimit', `"scim";r=${state.remaining};t=${state.resetSeconds}`);
    res.setHeader('X-RateLimit-Limit', String(state.limit));
    res.setHeader('X-RateLimit-Remaining', String(state.remaining));
    res.setHeader('X-RateLimit-Reset', String(Math.floor(state.resetAt.getTime() / 1000)));
    if (!state.allowed)
      throw errors.tooManyRequests(
        'rate_limited',
        state.resetSeconds,
        `A directory may make ${state.limit} SCIM requests per minute`,
      );
    next();
  };
}
