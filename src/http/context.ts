import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Plan } from '../config.ts';
import type { Actor } from '../shared/access/actor.ts';
import { errors } from '../shared/errors.ts';

export interface RequestContext {
  requestId: string;
  actor?: Actor;
  plan?: Plan;
}

declare module 'express-serve-static-core' {
  interface Request {
    context: RequestContext;
  }
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Accepts a caller's X-Request-Id when it is sane, so one id follows a call across systems. */
export function requestContext() {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.context = { requestId };
    res.setHeader('X-Request-Id', requestId);
    next();
  };
}

export function actorOf(req: Request): Actor {
  const actor = req.context.actor;
  if (!actor) throw errors.unauthenticated();
  return actor;
}
