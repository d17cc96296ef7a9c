import type { Router } from 'express';
import type { FileStorage } from '../../../integrations/storage/file-storage.ts';
import { actorOf } from '../../../http/context.ts';
import { sendStoredFile } from '../../../http/send-stored-file.ts';
import type { ThumbnailService } from './thumbnail.service.ts';

export function thumbnailRoutes(router: Router, thumbnails: ThumbnailService, storage: FileStorage): void {
  router.get('/api/resources/:id/thumbnail', async (req, res) => {
    await sendStoredFile(req, res, storage, await thumbnails.thumbnail(actorOf(req), String(req.params.id)));
  });
  router.get('/api/resources/:id/featured-image', async (req, res) => {
    await sendStoredFile(req, res, storage, await thumbnails.featuredImage(actorOf(req), String(req.params.id)));
  });
}
