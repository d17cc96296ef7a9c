import type { Router } from 'express';
import { actorOf } from '../../http/context.ts';
import type { IdempotencyMiddleware } from '../../http/idempotency.ts';
import { sendPage } from '../../http/respond.ts';
import { mapPage, pageRequest } from '../../shared/pagination.ts';
import type { WebhookDeliveryStatus } from './webhook-delivery.model.ts';
import type { WebhookDeliveryService } from './webhook-delivery.service.ts';
import { toDeliveryDto, toWebhookDto } from './webhook.mapper.ts';
import type { WebhookInput, WebhookPatch, WebhookService } from './webhook.service.ts';

export function webhookRoutes(
  router: Router,
  webhooks: WebhookService,
  deliveries: WebhookDeliveryService,
  idempotency: IdempotencyMiddleware,
): void {
  router.get('/api/webhooks', async (req, res) => {
    sendPage(req, res, mapPage(await webhooks.list(actorOf(req), pageRequest(req.query)), toWebhookDto));
  });
  router.post('/api/webhooks', idempotency, async (req, res) => {
    const { subscription, secret } = await webhooks.create(actorOf(req), req.body as WebhookInput);
    res
      .status(201)
      .location(`/api/webhooks/${subscription.id}`)
      .json({ ...toWebhookDto(subscription), secret });
  });
  router.get('/api/webhooks/event-types', (req, res) => {
    res.json({ data: webhooks.eventTypes(actorOf(req)) });
  });
  router.get('/api/webhooks/:id', async (req, res) => {
    res.json(toWebhookDto(await webhooks.get(actorOf(req), req.params.id)));
  });
  router.patch('/api/webhooks/:id', async (req, res) => {
    res.json(toWebhookDto(await webhooks.update(actorOf(req), req.params.id, req.body as WebhookPatch)));
  });
  router.delete('/api/webhooks/:id', async (req, res) => {
    await webhooks.remove(actorOf(req), req.params.id);
    res.status(204).end();
  });
  router.post('/api/webhooks/:id/rotate-secret', async (req, res) => {
    const { subscription, secret } = await webhooks.rotateSecret(actorOf(req), req.params.id);
    res.json({ ...toWebhookDto(subscription), secret });
  });
  router.get('/api/webhooks/:id/deliveries', async (req, res) => {
    const status = req.query.status as WebhookDeliveryStatus | undefined;
    const page = await deliveries.list(actorOf(req), req.params.id, pageRequest(req.query), { status });
    sendPage(
      req,
      res,
      mapPage(page, ({ delivery, attempts }) => toDeliveryDto(delivery, attempts)),
    );
  });
  router.post('/api/webhooks/:id/deliveries/:deliveryId/redeliver', async (req, res) => {
    const { delivery, attempts } = await deliveries.redeliver(actorOf(req), req.params.id, req.params.deliveryId);
    res.status(202).json(toDeliveryDto(delivery, attempts));
  });
}
