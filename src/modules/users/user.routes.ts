import { pipeline } from 'node:stream';
import type { Router } from 'express';
import { actorOf } from '../../http/context.ts';
import { sendPage } from '../../http/respond.ts';
import { mapPage, pageRequest } from '../../shared/pagination.ts';
import type { PasswordResetService } from './password-reset.service.ts';
import type { UserAdminService } from './user-admin.service.ts';
import type { UserDeletionService } from './user-deletion.service.ts';
import { userListFilter, userSort, wantsCsv } from './user-list.query.ts';
import { toAdminUser } from './user.mapper.ts';

export function userAdminRoutes(
  router: Router,
  users: UserAdminService,
  deletion: UserDeletionService,
  passwords: PasswordResetService,
): void {
  router.get('/api/admin/users', async (req, res, next) => {
    const actor = actorOf(req);
    if (!wantsCsv(req)) {
      sendPage(
        req,
        res,
        mapPage(
          await users.list(actor, userListFilter(req.query), userSort(req.query), pageRequest(req.query)),
          (row) => toAdminUser(row),
        ),
      );
      return;
    }
    const csv = await users.export(actor, userListFilter(req.query), userSort(req.query));
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="users-${new Date().toISOString().slice(0, 10)}.csv"`);
    res.setHeader('Cache-Control', 'no-store');
    // a failure before the first byte is an ordinary problem+json; later the error handler cuts the stream
    pipeline(csv, res, (error) => error && next(error));
  });
  router.post('/api/admin/users', async (req, res) => {
    const created = toAdminUser(await users.create(actorOf(req), req.body));
    res.status(201).location(`/api/admin/users/${created.id}`).json(created);
  });
  router.get('/api/admin/users/:id', async (req, res) => {
    const { user, associatedData } = await users.get(actorOf(req), req.params.id);
    res.json(toAdminUser(user, associatedData));
  });
  router.put('/api/admin/users/:id', async (req, res) => {
    res.json(toAdminUser(await users.update(actorOf(req), req.params.id, req.body)));
  });
  router.delete('/api/admin/users/:id', async (req, res) => {
    const deleted = await deletion.softDelete(actorOf(req), req.params.id, {
      transferTo: req.query.transferTo as string | undefined,
    });
    res.json({ ...deleted, user: toAdminUser(deleted.user) });
  });
  router.delete('/api/admin/users/:id/permanent', async (req, res) => {
    await deletion.purge(actorOf(req), req.params.id, req.query.confirm as string | undefined);
    res.status(204).end();
  });
  router.post('/api/admin/users/:id/reset-password', async (req, res) => {
    const sent = await passwords.requestReset(actorOf(req), req.params.id);
    res.status(202).json({ userId: sent.userId, expiresAt: sent.expiresAt.toISOString() });
  });
}

/** The public end of the reset link. */
export function passwordResetRoutes(router: Router, passwords: PasswordResetService): void {
  router.post('/api/auth/password-reset', async (req, res) => {
    await passwords.resetWithToken({ token: req.body.token, password: req.body.password }, req.context.requestId);
    res.status(204).end();
  });
}
