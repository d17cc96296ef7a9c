// POST /api/resources and PUT /api/resources/{id} on the uploads surface (no JSON parser, no contract
// validator: the fields are checked by resource-fields.ts). The write permission is checked before a
// byte of the body is read. PUT takes multipart (metadata and optionally a new file or featured image)
// or a JSON body of the same text fields (metadata only, 1 MB at most).
import express, { type Request, type Response } from 'express';
import { actorOf } from '../../http/context.ts';
import { noteSuspectEscape, rejectUnstorableJson } from '../../http/text-guard.ts';
import { JSON_BODY_LIMIT_BYTES } from '../../http/surfaces/body.ts';
import type { UploadRoutes } from '../../http/surfaces/surface-routes.ts';
import type { FileStorage } from '../../integrations/storage/file-storage.ts';
import { AppError, errors } from '../../shared/errors.ts';
import type { ResourceService } from './resource.service.ts';
import type { StagedFile } from './upload/file-inspection.ts';
import { DEFAULT_LIMITS, FEATURED_IMAGE_MAX_BYTES, multipartReader, type UploadedPart } from './upload/multipart.ts';
import { parseResourceFields } from './upload/resource-fields.ts';

// the API surface's guard too: bytes that are not UTF-8, a NUL or a lone surrogate are refused, not stored changed
const parseJson = express.json({ limit: JSON_BODY_LIMIT_BYTES, type: () => true, verify: noteSuspectEscape });

const isMultipart = (req: Request) => Boolean(req.is('multipart/form-data'));
const isJson = (req: Request) => Boolean(req.is(['application/json', 'application/*+json']));

const staged = (part: UploadedPart | undefined): StagedFile | undefined =>
  part && { tempKey: part.tempKey, sizeBytes: part.size, sha256: part.sha256, fileName: part.fileName };

function readJson(req: Request, res: Response): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) =>
    parseJson(req, res, (error?: unknown) => {
      if (error) return reject(error);
      rejectUnstorableJson(req, res, (refused?: unknown) => {
        if (refused) return reject(refused);
        const body = req.body as unknown;
        if (!body || typeof body !== 'object' || Array.isArray(body))
          return reject(new AppError('malformed_body', 'The JSON body must be an object'));
        resolve(body as Record<string, unknown>);
      });
    }),
  );
}

export interface ResourceUploadRouteDeps {
  services: { resources: ResourceService };
  storage: FileStorage;
  maxFileBytes: number;
}

export function resourceUploadRoutes({ services, storage, maxFileBytes }: ResourceUploadRouteDeps): UploadRoutes {
  const multipart = multipartReader(storage, {
    ...DEFAULT_LIMITS,
    files: { file: maxFileBytes, featuredImage: FEATURED_IMAGE_MAX_BYTES },
  });
  const options = { maxBytes: multipart.routeBound };

  return (uploads) => {
    uploads.post('/resources', options, async (req, res) => {
      const actor = actorOf(req);
      services.resources.assertCanWrite(actor);
      if (!isMultipart(req))
        throw new AppError('unsupported_media_type', 'Upload a resource as multipart/form-data', {
          detectedType: req.get('content-type') ?? 'none',
        });
      const upload = await multipart.read(req, res);
      try {
        if (await req.streamIdempotency?.settle(upload.contentSha256)) return;
        const fields = parseResourceFields(upload.fields, 'multipart');
        if (fields.name === undefined) throw errors.validation([{ field: 'name', message: 'is required' }]);
        const dto = await services.resources.create(actor, {
          ...fields,
          name: fields.name,
          file: staged(upload.files.file),
          featuredImage: staged(upload.files.featuredImage),
        });
        res.status(201).location(`/api/resources/${dto.id}`).json(dto);
      } finally {
        await upload.session.discard(storage);
      }
    });

    uploads.put('/resources/:id', options, async (req, res) => {
      const actor = actorOf(req);
      services.resources.assertCanWrite(actor);
      const id = String(req.params.id);
      if (isJson(req)) {
        const body = await readJson(req, res);
        // the contract's ResourceUpdate (minProperties: 1): an empty change is a client's mistake
        if (Object.keys(body).length === 0)
          throw errors.validation([{ field: 'body', message: 'must name at least one field to change' }]);
        const fields = parseResourceFields(body, 'json');
        res.json(await services.resources.update(actor, id, fields));
        return;
      }
      if (!isMultipart(req))
        throw new AppError(
          'unsupported_media_type',
          'Send multipart/form-data (with a new file) or application/json (metadata only)',
          { detectedType: req.get('content-type') ?? 'none' },
        );
      const upload = await multipart.read(req, res);
      try {
        const fields = parseResourceFields(upload.fields, 'multipart');
        res.json(
          await services.resources.update(actor, id, {
            ...fields,
            file: staged(upload.files.file),
            featuredImage: staged(upload.files.featuredImage),
          }),
        );
      } finally {
        await upload.session.discard(storage);
      }
    });
  };
}
