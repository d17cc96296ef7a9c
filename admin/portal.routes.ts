// Routes of the portal outside AdminJS's actions: the CSV download, the impersonation banner, and the
// CRM page's (resources/crm.routes.ts).
import { pipeline } from 'node:stream';
import { Router, type Request } from 'express';
import type { AppContext as Container } from '../src/app-context.ts';
import { AppError } from '../src/shared/errors.ts';
import { portalActor } from './portal-actor.ts';
import { crmPortalRoutes } from './resources/crm.routes.ts';
import { portalUserFilter, portalUserSort } from './resources/users.filter.ts';

const adminOf = (req: Request) =>
  (req.session as unknown as { adminUser?: Parameters<typeof portalActor>[0] }).adminUser;

/** AdminJS keeps list state in the query: filters.<path>, filters.<path>~~from / ~~to, sortBy, direction. */
function listState(query: Request['query']) {
  const filters: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    if (!key.startsWith('filters.') || typeof value !== 'string') continue;
    const [path, bound] = key.slice('filters.'.length).split('~~') as [string, string | undefined];
    if (bound) filters[path] = { ...(filters[path] as object | undefined), [bound]: value };
    else filters[path] = value;
  }
  return {
    filter: portalUserFilter(filters),
    sort: portalUserSort({ sortBy: query.sortBy as string, direction: query.direction as string }),
  };
}

export function portalRoutes(container: Container): Router {
  const { services } = container;
  const router = Router();

  router.get('/export/users.csv', async (req, res, next) => {
    const { filter, sort } = listState(req.query);
    const csv = await services.users.export(await portalActor(adminOf(req)), filter, sort);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="users-${new Date().toISOString().slice(0, 10)}.csv"`);
    pipeline(csv, res, (error) => error && next(error));
  });

  // how many rows the export link of the users list will write (and whether the list is empty)
  router.get('/export/users.count', async (req, res) => {
    const { filter, sort } = listState(req.query);
    const page = await services.users.list(await portalActor(adminOf(req)), filter, sort, { page: 1, itemsPerPage: 1 });
    res.json({ rows: page.pagination.totalItems });
  });

  router.get('/impersonation/current', async (req, res) => {
    const actor = await portalActor(adminOf(req));
    const open = await services.impersonation.list(
      actor,
      { adminId: actor.id, status: 'active' },
      { page: 1, itemsPerPage: 1 },
    );
    const session = open.data[0];
    if (!session) return void res.json({ active: false });
    const { user } = await services.users.get(actor, session.targetUserId);
    res.json({
      active: true,
      sessionId: session.id,
      targetName: `${user.firstName} ${user.lastName}`,
      targetEmail: user.email,
      mode: session.mode,
      expiresAt: session.expiresAt,
    });
  });

  router.post('/impersonation/exit', async (req, res) => {
    const actor = await portalActor(adminOf(req));
    // back to user management on the portal's own origin, whatever ADMIN_PORTAL_URL says
    const returnUrl = `${req.baseUrl}/resources/users`;
    try {
      res.json({ ...(await services.impersonation.end(actor)), returnUrl });
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'not_impersonating')) throw error;
      res.json({ returnUrl }); // already over (expired, or ended elsewhere)
    }
  });
  router.use(crmPortalRoutes(container));
  return router;
}
