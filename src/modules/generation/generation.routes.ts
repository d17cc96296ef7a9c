import type { Request, Response, Router } from 'express';
import type { FileStorage } from '../../integrations/storage/file-storage.ts';
import { actorOf } from '../../http/context.ts';
import { sendStoredFile } from '../../http/send-stored-file.ts';
import type { GenerationKind, StorageKeys } from './generated-content.model.ts';
import { toGeneratedContentDto } from './generation.mapper.ts';
import type { GenerationService } from './generation.service.ts';

export function generationRoutes(router: Router, generation: GenerationService, storage: FileStorage): void {
  const generate = (kind: GenerationKind) => async (req: Request, res: Response) => {
    const record = await generation.request(actorOf(req), String(req.params.id), kind);
    res
      .status(202)
      .setHeader('Location', `/api/resources/${record.resourceId}/${kind}`)
      .json(toGeneratedContentDto(record));
  };
  const file = (kind: GenerationKind, role: keyof StorageKeys) => async (req: Request, res: Response) => {
    await sendStoredFile(req, res, storage, await generation.file(actorOf(req), String(req.params.id), kind, role));
  };

  router.post('/api/resources/:id/generate-podcast', generate('podcast'));
  router.post('/api/resources/:id/generate-infographic', generate('infographic'));
  router.get('/api/resources/:id/podcast', async (req, res) => {
    res.json(toGeneratedContentDto(await generation.get(actorOf(req), req.params.id, 'podcast')));
  });
  router.get('/api/resources/:id/podcast/audio', file('podcast', 'audio'));
  router.get('/api/resources/:id/infographic', async (req, res) => {
    res.json(toGeneratedContentDto(await generation.get(actorOf(req), req.params.id, 'infographic')));
  });
  router.get('/api/resources/:id/infographic.svg', file('infographic', 'svg'));
  router.get('/api/resources/:id/infographic.png', file('infographic', 'png'));
  router.get('/api/resources/:id/generated-content', async (req, res) => {
    res.json({ data: (await generation.list(actorOf(req), req.params.id)).map(toGeneratedContentDto) });
  });
}
