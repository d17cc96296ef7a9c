// The tus 1.0 protocol (core, creation, termination, expiration) at /api/uploads, spoken by @tus/server
// over @tus/file-store. The upload surface has authenticated and rate-limited the caller before this
// runs; here the library decides whose upload it is (UploadService) before tus touches a byte, so
// another tenant's or another creator's upload is 404 and an announced length over the limit is 413.
// Every refusal of ours is problem+json, the missing Tus-Resumable (412) included; CORS headers go
// only to the origins LIBRARY_UPLOAD_CORS_ORIGINS names (none by default).
import { Server, EVENTS } from '@tus/server';
import { Metadata } from '@tus/utils';
import { AsyncLocalStorage } from 'node:async_hooks';
import { isUtf8 } from 'node:buffer';
import type { Request, Response } from 'express';
import { actorOf } from '../../../http/context.ts';
import type { UploadRoutes } from '../../../http/surfaces/surface-routes.ts';
import { NUL_MESSAGE } from '../../../http/text-guard.ts';
import { AppError, errors } from '../../../shared/errors.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { UploadOwner } from './upload.repository.ts';
import type { UploadService } from './upload.service.ts';

export const UPLOADS_PATH = '/api/uploads';
const TUS_VERSION = '1.0.0';

/** What the tus hooks need of the request being handled (they receive tus's own request object). */
interface TusCall {
  uploadId: string;
  owner: UploadOwner;
}

function uploadLengthOf(req: Request): number {
  const header = req.get('upload-length');
  if (header === undefined) {
    // Upload-Defer-Length is not offered: the size limit is enforced before the first byte
    throw errors.validation([
      { field: 'Upload-Length', message: 'is required (Upload-Defer-Length is not supported)' },
    ]);
  }
  if (!/^\d{1,16}$/.test(header))
    throw errors.validation([{ field: 'Upload-Length', message: 'must be a non-negative integer' }]);
  return Number(header);
}

/**
 * tus's own check of Upload-Metadata answers a text/plain 400 before any hook runs; checked here first
 * with the same rules (@tus/utils), so the refusal is problem+json naming the header like every 400.
 */
function assertUploadMetadata(req: Request): void {
  const header = req.get('upload-metadata');
  if (header === undefined) return;
  try {
    Metadata.parse(header);
  } catch {
    throw errors.validation([
      {
        field: 'Upload-Metadata',
        message: 'must be comma-separated `key base64value` pairs (tus 1.0.0), each key once',
      },
    ]);
  }
  // the values are stored as text (the file name): bytes that are not UTF-8 or a NUL are refused, as
  // in a multipart file name (tus decoded them to U+FFFD, and the NUL was dropped on the way)
  for (const pair of header.split(',')) {
    const [key, value] = pair.trim().split(' ');
    const bytes = Buffer.from(value ?? '', 'base64');
    const message = !isUtf8(bytes) ? 'is not valid UTF-8' : bytes.includes(0) ? NUL_MESSAGE : undefined;
    if (message) throw errors.validation([{ field: `Upload-Metadata ${key}`, message }]);
  }
}

/**
 * A PATCH's Content-Type and Upload-Offset, checked before tus does: its refusals are text/plain, and
 * a missing offset its 403 (here a permission status).
 */
function assertPatchHeaders(req: Request): void {
  if (req.method !== 'PATCH') return;
  if (!req.is('application/offset+octet-stream'))
    throw new AppError('unsupported_media_type', 'A PATCH sends its bytes as application/offset+octet-stream');
  if (!/^\d{1,16}$/.test(req.get('upload-offset') ?? ''))
    throw errors.validation([{ field: 'Upload-Offset', message: 'is required: the offset the bytes start at' }]);
}

/** tus 1.0 requires the header on every request but OPTIONS; tus's own refusal is text/plain. */
function assertTusResumable(req: Request): void {
  if (req.get('tus-resumable') === TUS_VERSION) return;
  throw new AppError(
    'tus_version_unsupported',
    `Send Tus-Resumable: ${TUS_VERSION} (the only version this server speaks)`,
    { headers: { 'Tus-Version': TUS_VERSION } },
  );
}

export interface TusOptions {
  /** Browser origins allowed to upload from another site (exact `scheme://host[:port]`); none by default. */
  corsOrigins: readonly string[];
}

export function createTusServer(
  service: UploadService,
  logger: Logger,
  options: TusOptions,
): { tus: Server; calls: AsyncLocalStorage<TusCall> } {
  const calls = new AsyncLocalStorage<TusCall>();
  const current = (): TusCall => {
    const call = calls.getStore();
    if (!call) throw new Error('tus hook outside an authorised upload request');
    return call;
  };
  const tus = new Server({
    path: UPLOADS_PATH,
    datastore: service.datastore,
    maxSize: service.maxBytes,
    // the client resolves it against the URL it posted to, whatever host or proxy sits in front
    relativeLocation: true,
    // a function, so an origin not listed gets no Access-Control-Allow-Origin at all (a list falls back to its first entry)
    allowedOrigins: (origin) => options.corsOrigins.includes(origin),
    namingFunction: () => current().uploadId,
    getFileIdFromRequest: () => current().uploadId,
    // a finished upload's bytes have moved to storage; the client must not delete them by a race
    disableTerminationForFinishedUploads: true,
    onUploadCreate: async (_req, upload) => {
      await service.create(upload.id, current().owner, {
        fileName: upload.metadata?.filename,
        sizeBytes: upload.size ?? 0,
      });
      return {};
    },
    onUploadFinish: async (_req, upload) => {
      await service.finish(upload.id);
      return {};
    },
    // tus reads its copy once more after onUploadFinish (a creation with upload asks for Upload-Expires)
    onResponseError: (_req, error) => {
      if (!('status_code' in error)) logger.error({ err: error }, 'resumable upload failed');
      return undefined;
    },
  });
  tus.on(EVENTS.POST_FINISH, (_req, _res, upload) => void service.dropTusCopy(upload.id));
  tus.on(
    EVENTS.POST_TERMINATE,
    (_req, _res, id) =>
      void service
        .discard(id)
        .catch((error: unknown) => logger.warn({ err: error, uploadId: id }, 'could not discard a terminated upload')),
  );
  return { tus, calls };
}

/**
 * Every byte has arrived and the finish (a copy to storage, the digest) is running in the last
 * PATCH's request: tus would refuse a termination now in its own plain text. Say it in the API's
 * words; once finished, the same DELETE removes it (the finished branch above).
 */
async function refuseWhileFinishing(service: UploadService, uploadId: string): Promise<void> {
  const stored = await service.datastore.getUpload(uploadId).catch(() => undefined);
  if (stored?.size !== undefined && stored.offset === stored.size)
    throw new AppError('conflict', 'Every byte has arrived and the upload is being finished: send the DELETE again', {
      headers: { 'Retry-After': '1', 'Tus-Resumable': TUS_VERSION },
    });
}

export function resumableUploadRoutes(service: UploadService, logger: Logger, options: TusOptions): UploadRoutes {
  const { tus, calls } = createTusServer(service, logger, options);
  const handle = (req: Request, res: Response, call: TusCall) => calls.run(call, () => tus.handle(req, res));

  return (uploads) => {
    // OPTIONS: the protocol's discovery (versions, extensions, maximum size), also a browser's preflight
    uploads.resumable('/uploads', { maxBytes: service.maxBytes, methods: ['post'] }, async (req, res) => {
      if (req.method === 'OPTIONS') return void (await tus.handle(req, res));
      assertTusResumable(req);
      const actor = actorOf(req);
      const owner = service.assertCanCreate(actor, uploadLengthOf(req));
      assertUploadMetadata(req);
      await handle(req, res, { uploadId: service.newId(), owner });
    });
    uploads.resumable(
      '/uploads/:uploadId',
      { maxBytes: service.maxBytes, methods: ['head', 'patch', 'delete'] },
      async (req, res) => {
        if (req.method === 'OPTIONS') return void (await tus.handle(req, res));
        assertTusResumable(req);
        const actor = actorOf(req);
        const uploadId = String(req.params.uploadId);
        const upload = await service.findOwn(actor, uploadId);
        const owner = service.ownerOf(actor);
        if (upload.status === 'finished') {
          // tus's copy is gone once the bytes reached storage; the upload is whole, so say so
          if (req.method === 'HEAD') {
            res.set({
              'Tus-Resumable': TUS_VERSION,
              'Upload-Offset': String(upload.sizeBytes),
              'Upload-Length': String(upload.sizeBytes),
              'Cache-Control': 'no-store',
            });
            return void res.status(200).end();
          }
          if (req.method === 'DELETE') {
            await service.discard(uploadId);
            return void res.set('Tus-Resumable', TUS_VERSION).status(204).end();
          }
          throw new AppError('conflict', 'The upload is already finished', {
            headers: { 'Upload-Offset': String(upload.sizeBytes), 'Tus-Resumable': TUS_VERSION },
          });
        }
        assertPatchHeaders(req); // after the ownership check: another's upload is 404 whatever is sent
        if (req.method === 'DELETE') await refuseWhileFinishing(service, uploadId);
        await handle(req, res, { uploadId, owner });
        if (req.method === 'PATCH') {
          // the row's offset is informational (tus's file is the truth): record it, never fail for it
          const stored = await service.datastore.getUpload(uploadId).catch(() => undefined);
          if (stored) await service.recordOffset(uploadId, stored.offset).catch(() => undefined);
        }
      },
    );
  };
}
