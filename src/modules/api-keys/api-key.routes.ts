import type { Router } from 'express';
import { actorOf } from '../../http/context.ts';
import { sendPage } from '../../http/respond.ts';
import { mapPage, pageRequest } from '../../shared/pagination.ts';
import { toApiKeyDto } from './api-key.mapper.ts';
import type { ApiKeyService } from './api-key.service.ts';

export function apiKeyRoutes(router: Router, apiKeys: ApiKeyService): void {
  router.get('/api/api-keys', async (req, res) => {
    const page = await apiKeys.list(actorOf(req), pageRequest(req.query));
    sendPage(req, res, mapPage(page, toApiKeyDto));
  });
  router.post('/api/api-keys', async (req, res) => {
    const { apiKey, secret } = await apiKeys.create(actorOf(req), { name: req.body.name });
    res
      .status(201)
      .location(`/api/api-keys/${apiKey.id}`)
      .json({ ...toApiKeyDto(apiKey), key: secret });
  });
  router.delete('/api/api-keys/:id', async (req, res) => {
    await apiKeys.revoke(actorOf(req), req.params.id);
    res.status(204).end();
  });
}
