import type { Router } from 'express';
import type { Model } from 'sequelize';
import { actorOf } from '../../http/context.ts';
import type { IdempotencyMiddleware } from '../../http/idempotency.ts';
import { negotiate, sendPage } from '../../http/respond.ts';
import { mapPage, pageRequest } from '../../shared/pagination.ts';
import type { CrudService } from './crud.service.ts';

/** GET (list, or CSV with Accept: text/csv), GET one, POST, PUT and DELETE for one resource. */
export function crudRoutes<M extends Model, Dto extends object, Input extends object>(
  router: Router,
  service: CrudService<M, Dto, Input>,
  idempotency: IdempotencyMiddleware,
): void {
  const { path, toDto } = service.definition;
  const item = `${path}/:id`;
  router.get(path, async (req, res) => {
    if (negotiate(req, ['application/json', 'text/csv']) === 'text/csv') {
      const stream = service.csvExport(actorOf(req), req.query);
      res.type('text/csv; charset=utf-8').attachment(`${path.split('/').pop()}.csv`);
      await stream(res);
      return;
    }
    const page = await service.list(actorOf(req), req.query, pageRequest(req.query));
    sendPage(req, res, mapPage(page, toDto));
  });
  router.post(path, idempotency, async (req, res) => {
    const record = await service.create(actorOf(req), req.body as Input);
    res
      .status(201)
      .location(`${path}/${String(record.get('id'))}`)
      .json(toDto(record));
  });
  router.get(item, async (req, res) => {
    res.json(toDto(await service.get(actorOf(req), req.params.id as string)));
  });
  router.put(item, async (req, res) => {
    res.json(toDto(await service.replace(actorOf(req), req.params.id as string, req.body as Input)));
  });
  router.delete(item, async (req, res) => {
    await service.remove(actorOf(req), req.params.id as string);
    res.status(204).end();
  });
}
