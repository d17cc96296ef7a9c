import type { Router } from 'express';
import { actorOf } from '../../http/context.ts';
import { sendPage } from '../../http/respond.ts';
import { mapPage, pageRequest } from '../../shared/pagination.ts';
import type { MailService, OutboxFilter } from './mail.service.ts';
import { toOutboxMessageDto } from './mail.mapper.ts';

export function mailRoutes(router: Router, mail: MailService): void {
  router.get('/api/admin/outbox', async (req, res) => {
    const filter: OutboxFilter = {
      to: req.query.to as string | undefined,
      template: req.query.template as OutboxFilter['template'],
      status: req.query.status as OutboxFilter['status'],
    };
    sendPage(req, res, mapPage(await mail.list(actorOf(req), filter, pageRequest(req.query)), toOutboxMessageDto));
  });
}
