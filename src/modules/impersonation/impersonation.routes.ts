import type { Router } from 'express';
import { actorOf } from '../../http/context.ts';
import { sendPage } from '../../http/respond.ts';
import { pageRequest } from '../../shared/pagination.ts';
import type { components } from '../../types/openapi.d.ts';
import type { ImpersonationService, SessionFilter, StartedImpersonation } from './impersonation.service.ts';

type ImpersonationStarted = components['schemas']['ImpersonationStarted'];

const toStarted = (started: StartedImpersonation): ImpersonationStarted => ({
  accessToken: started.token.token,
  tokenType: 'Bearer',
  expiresAt: started.token.expiresAt.toISOString(),
  expiresIn: started.token.expiresIn,
  redirectUrl: started.redirectUrl,
  session: started.session,
});

export function impersonationRoutes(router: Router, impersonation: ImpersonationService): void {
  router.post('/api/admin/users/:id/impersonate', async (req, res) => {
    const started = await impersonation.start(actorOf(req), req.params.id, {
      mode: req.body?.mode,
      reason: req.body?.reason,
    });
    // a session has no URI of its own: the one that ends it (with the session's token)
    res.status(201).location('/api/admin/impersonate').json(toStarted(started));
  });
  router.delete('/api/admin/impersonate', async (req, res) => {
    res.json(await impersonation.end(actorOf(req)));
  });
  router.get('/api/admin/impersonations', async (req, res) => {
    const filter: SessionFilter = {
      adminId: req.query.adminId as string | undefined,
      targetUserId: req.query.targetUserId as string | undefined,
      status: req.query.status as SessionFilter['status'],
    };
    sendPage(req, res, await impersonation.list(actorOf(req), filter, pageRequest(req.query)));
  });
}
