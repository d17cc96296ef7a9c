// A category's icon image: PUT (multipart, one `file` part, on the uploads surface: the permission and
// the category are checked before a byte is read), GET (anyone who sees the category) and DELETE.
import type { Router } from 'express';
import { actorOf } from '../../http/context.ts';
import type { UploadRoutes } from '../../http/surfaces/surface-routes.ts';
import type { FileStorage } from '../../integrations/storage/file-storage.ts';
import { AppError } from '../../shared/errors.ts';
import { sendStoredFile } from '../../http/send-stored-file.ts';
import { DEFAULT_LIMITS, multipartReader } from '../library/index.ts';
import { CATEGORY_ICON_MAX_BYTES, type CategoryIconService } from './category-icon.service.ts';
import type { ResourceCategoryService } from './category.service.ts';

export interface CategoryIconRouteDeps {
  services: { categoryIcons: CategoryIconService; resourceCategories: ResourceCategoryService };
  storage: FileStorage;
}

export function categoryIconApiRoutes({ services, storage }: CategoryIconRouteDeps) {
  return (router: Router): void => {
    router.get('/api/resources/categories/:id/icon', async (req, res) => {
      await sendStoredFile(req, res, storage, await services.categoryIcons.open(actorOf(req), String(req.params.id)));
    });
    router.delete('/api/resources/categories/:id/icon', async (req, res) => {
      await services.categoryIcons.clear(actorOf(req), String(req.params.id));
      res.status(204).end();
    });
  };
}

export function categoryIconUploadRoutes({ services, storage }: CategoryIconRouteDeps): UploadRoutes {
  const multipart = multipartReader(storage, {
    ...DEFAULT_LIMITS,
    fields: 5,
    files: { file: CATEGORY_ICON_MAX_BYTES },
  });
  return (uploads) => {
    uploads.put('/resources/categories/:id/icon', { maxBytes: multipart.routeBound }, async (req, res) => {
      const actor = actorOf(req);
      const id = String(req.params.id);
      await services.categoryIcons.assertCanChange(actor, id);
      if (!req.is('multipart/form-data'))
        throw new AppError('unsupported_media_type', 'Upload the icon as multipart/form-data with one file part', {
          detectedType: req.get('content-type') ?? 'none',
        });
      const upload = await multipart.read(req, res);
      try {
        const part = upload.files.file;
        if (!part)
          throw new AppError('validation_failed', 'file is required', {
            errors: [{ field: 'file', message: 'is required' }],
          });
        await services.categoryIcons.set(actor, id, {
          tempKey: part.tempKey,
          sizeBytes: part.size,
          sha256: part.sha256,
          fileName: part.fileName,
        });
        res.json(await services.resourceCategories.get(actor, id));
      } finally {
        await upload.session.discard(storage);
      }
    });
  };
}
