// The library's file paths on the JSON API: delete, download (Range, ETag, 304), versions and an old
// version's download. Thin: one service call, then send. A download counts once per response that
// starts at byte 0 (a video's seeking range requests are the same download; a 304 sends nothing).
import type { Router } from 'express';
import { actorOf } from '../../http/context.ts';
import { sendPage } from '../../http/respond.ts';
import { pageRequest } from '../../shared/pagination.ts';
import type { FileStorage } from '../../integrations/storage/file-storage.ts';
import type { ResourceFileService } from './resource-files.service.ts';
import type { ResourceService } from './resource.service.ts';
import { toResourceVersionDto } from './resource.mapper.ts';
import { sendStoredFile } from '../../http/send-stored-file.ts';

export interface ResourceRouteDeps {
  services: { resources: ResourceService; resourceFiles: ResourceFileService };
  storage: FileStorage;
}

export function resourceRoutes({ services, storage }: ResourceRouteDeps) {
  return (router: Router): void => {
    router.delete('/api/resources/:id', async (req, res) => {
      await services.resources.delete(actorOf(req), req.params.id!);
      res.status(204).end();
    });
    router.get('/api/resources/:id/download', async (req, res) => {
      const { reader, file } = await services.resourceFiles.openCurrent(actorOf(req), req.params.id!);
      const outcome = await sendStoredFile(req, res, storage, file);
      if (outcome.status !== 304 && outcome.fromStart)
        await services.resourceFiles.recordDownload(reader, req.params.id!);
    });
    router.get('/api/resources/:id/versions', async (req, res) => {
      const page = await services.resourceFiles.versions(actorOf(req), req.params.id!, pageRequest(req.query));
      sendPage(req, res, {
        data: page.data.map((version) => toResourceVersionDto(req.params.id!, version)),
        pagination: page.pagination,
      });
    });
    router.get('/api/resources/:id/versions/:version/download', async (req, res) => {
      const file = await services.resourceFiles.openVersion(actorOf(req), req.params.id!, Number(req.params.version));
      await sendStoredFile(req, res, storage, file);
    });
  };
}
