import type { Router } from 'express';
import { actorOf } from '../../http/context.ts';
import { sendPage } from '../../http/respond.ts';
import { pageRequest } from '../../shared/pagination.ts';
import type { ResourceCatalogService } from './catalog.service.ts';
import type { CategoryInput, ResourceCategoryService } from './category.service.ts';
import type { ArchivedChoice } from './category.repository.ts';
import type { EntitlementInput, ResourceEntitlementService } from './entitlement.service.ts';

export interface CatalogServices {
  catalog: ResourceCatalogService;
  categories: ResourceCategoryService;
  entitlements: ResourceEntitlementService;
}

const LIST_PARAMETERS = new Set(['page', 'itemsPerPage']);
const withoutPaging = (query: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(query).filter(([name]) => !LIST_PARAMETERS.has(name)));

/** Categories first: `/api/resources/categories` must not be taken for a resource id. */
export function catalogRoutes(router: Router, { catalog, categories, entitlements }: CatalogServices): void {
  router.get('/api/resources/categories', async (req, res) => {
    sendPage(
      req,
      res,
      await categories.list(
        actorOf(req),
        (req.query.archived as ArchivedChoice | undefined) ?? 'exclude',
        pageRequest(req.query),
      ),
    );
  });
  router.post('/api/resources/categories', async (req, res) => {
    const category = await categories.create(actorOf(req), req.body as CategoryInput);
    res.status(201).location(`/api/resources/categories/${category.id}`).json(category);
  });
  router.post('/api/resources/categories/reorder', async (req, res) => {
    sendPage(
      req,
      res,
      await categories.reorder(actorOf(req), (req.body as { ids: string[] }).ids, pageRequest(req.query)),
    );
  });
  router.put('/api/resources/categories/:id', async (req, res) => {
    res.json(await categories.update(actorOf(req), req.params.id as string, req.body as CategoryInput));
  });
  router.post('/api/resources/categories/:id/archive', async (req, res) => {
    res.json(await categories.archive(actorOf(req), req.params.id as string));
  });
  router.post('/api/resources/categories/:id/unarchive', async (req, res) => {
    res.json(await categories.unarchive(actorOf(req), req.params.id as string));
  });

  router.get('/api/resources', async (req, res) => {
    sendPage(req, res, await catalog.list(actorOf(req), withoutPaging(req.query), pageRequest(req.query)));
  });
  router.get('/api/resources/:id', async (req, res) => {
    res.json(await catalog.get(actorOf(req), req.params.id as string, { countView: req.method !== 'HEAD' }));
  });

  router.post('/api/resources/:id/entitlements', async (req, res) => {
    const entitlement = await entitlements.grant(actorOf(req), req.params.id as string, req.body as EntitlementInput);
    res
      .status(201)
      .location(`/api/resources/${entitlement.resourceId}/entitlements/${entitlement.id}`)
      .json(entitlement);
  });
  router.get('/api/resources/:id/entitlements', async (req, res) => {
    const filter = {
      memberId: req.query.memberId as string | undefined,
      active: req.query.active as boolean | undefined,
    };
    sendPage(req, res, await entitlements.list(actorOf(req), req.params.id as string, filter, pageRequest(req.query)));
  });
  router.delete('/api/resources/:id/entitlements/:entitlementId', async (req, res) => {
    await entitlements.revoke(actorOf(req), req.params.id as string, req.params.entitlementId as string);
    res.status(204).end();
  });
}
