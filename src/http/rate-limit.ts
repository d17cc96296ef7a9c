import type { NextFunction, Request, Response } from 'express';
import type { Config } from '../config.ts';
import { errors } from '../shared/errors.ts';
import type { RateLimiter } from '../shared/rate-limiter.ts';
import { operationOf } from './openapi.ts';

const WINDOW_SECONDS = 3600;

/**
 * Per organization, per plan, per hour, across every instance. Headers follow the IETF
 * RateLimit draft (RateLimit-Policy / RateLimit) and the familiar X-RateLimit-* trio. An operation
 * that takes no credential (`security: []`: login, password reset, the public catalogue) is not
 * counted even when one is sent: a leftover header must not make a login 429, and the catalogue has
 * its own limit per address, whose headers it carries.
 */
export function rateLimit(limiter: RateLimiter, limits: Config['rateLimits']) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const { actor, plan } = req.context;
    if (!actor?.organizationId || !plan || operationOf(req)?.security?.length === 0) return next();
    const state = await limiter.consume(`org:${actor.organizationId}`, limits[plan], WINDOW_SECONDS);
    res.setHeader('RateLimit-Policy', `"hourly";q=${state.limit};w=${WINDOW_SECONDS}`);
    res.setHeader('RateLimit', `"hourly";r=${state.remaining};t=${state.resetSeconds}`);
    res.setHeader('X-RateLimit-Limit', String(state.limit));
    res.setHeader('X-RateLimit-Remaining', String(state.remaining));
    res.setHeader('X-RateLimit-Reset', String(Math.floor(state.resetAt.getTime() / 1000)));
    if (!state.allowed) {
      throw errors.tooManyRequests(
        'rate_limited',
        state.resetSeconds,
        `The ${plan} plan allows ${state.limit} requests per hour`,
      );
    }
    next();
  };
}
