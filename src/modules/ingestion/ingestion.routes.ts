import type { Router } from 'express';
import { actorOf } from '../../http/context.ts';
import { toIngestionStatusDto } from './ingestion.mapper.ts';
import type { IngestionService } from './ingestion.service.ts';

export function ingestionRoutes(router: Router, ingestion: IngestionService): void {
  router.get('/api/resources/:id/ingestion', async (req, res) => {
    res.json(toIngestionStatusDto(await ingestion.status(actorOf(req), req.params.id)));
  });
  router.post('/api/resources/:id/ingestion', async (req, res) => {
    res.status(202).json(toIngestionStatusDto(await ingestion.rerun(actorOf(req), req.params.id)));
  });
}
