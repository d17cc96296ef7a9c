// Resumable uploads as the library sees them: who may start one (client admins and API keys, within
// LIBRARY_MAX_FILE_BYTES), whose it is (its organization and creator; anyone else gets 404), what
// happens when the last byte arrives (hash it once while moving it to a temporary storage key), and
// the hand-over to the resource service (take, once). The tus protocol itself is tus.routes.ts.
import { FileStore } from '@tus/file-store';
import { createHash, randomUUID } from 'node:crypto';
import { Transform } from 'node:stream';
import type { LibrarySettings } from '../../../config.ts';
import type { FileStorage } from '../../../integrations/storage/file-storage.ts';
import { TEMP_PREFIX } from '../../../integrations/storage/file-storage.ts';
import type { Actor } from '../../../shared/access/actor.ts';
import { scopeFor } from '../../../shared/access/scope.ts';
import type { Clock } from '../../../shared/clock.ts';
import { AppError, errors } from '../../../shared/errors.ts';
import type { Logger } from '../../../shared/logger.ts';
import { isUuid } from '../../../shared/uuid.ts';
import type { CompletedUpload, CompletedUploads } from './completed-upload.ts';
import type { UploadOwner, UploadRepository, UploadRow } from './upload.repository.ts';
import { cleanFileName } from '../upload/file-name.ts';

const HOUR_MS = 3_600_000;

export interface UploadServiceDeps {
  repository: UploadRepository;
  storage: FileStorage;
  clock: Clock;
  logger: Logger;
  settings: Pick<LibrarySettings, 'maxFileBytes' | 'uploadExpiryHours' | 'uploadsDir'>;
}

/** Where a finished upload's bytes wait to be taken. */
export const UPLOADS_TEMP_PREFIX = `${TEMP_PREFIX}uploads/`;
export const tempKeyOf = (uploadId: string) => `${UPLOADS_TEMP_PREFIX}${uploadId}`;

export class UploadService implements CompletedUploads {
  /** Where tus keeps the bytes of unfinished uploads (one file plus a .json per upload). */
  readonly datastore: FileStore;

  constructor(private readonly deps: UploadServiceDeps) {
    this.datastore = new FileStore({
      directory: deps.settings.uploadsDir,
      expirationPeriodInMilliseconds: deps.settings.uploadExpiryHours * HOUR_MS,
    });
    // the size limit is enforced before the first byte, so a deferred length is refused (tus.routes.ts);
    // OPTIONS advertises the store's extensions, and a client believes what it is told
    this.datastore.extensions = this.datastore.extensions.filter((extension) => extension !== 'creation-defer-length');
  }

  get maxBytes(): number {
    return this.deps.settings.maxFileBytes;
  }

  /** The upload's owner: the actor's organization and the actor itself. Only client admins and API keys (`resources:write`). */
  ownerOf(actor: Actor): UploadOwner {
    const { organizationId } = scopeFor(actor, 'resource', 'write');
    if (organizationId === null || (actor.type !== 'user' && actor.type !== 'api_key')) throw errors.forbidden();
    return { organizationId, creatorType: actor.type, creatorId: actor.id };
  }

  /** Before tus creates an upload: may the actor, and does the announced length fit? */
  assertCanCreate(actor: Actor, uploadLength: number): UploadOwner {
    const owner = this.ownerOf(actor);
    if (uploadLength > this.maxBytes)
      throw new AppError('payload_too_large', `The upload may not exceed ${this.maxBytes} bytes`);
    return owner;
  }

  async create(
    id: string,
    owner: UploadOwner,
    upload: { fileName: string | null | undefined; sizeBytes: number },
  ): Promise<void> {
    const expiresAt = new Date(this.deps.clock.now().getTime() + this.deps.settings.uploadExpiryHours * HOUR_MS);
    await this.deps.repository.insert(id, owner, {
      fileName: cleanFileName(upload.fileName),
      sizeBytes: upload.sizeBytes,
      expiresAt,
    });
  }

  /** The actor's upload, or 404 (unknown, another tenant's or another creator's). */
  async findOwn(actor: Actor, uploadId: string): Promise<UploadRow> {
    const owner = this.ownerOf(actor);
    const row = isUuid(uploadId) ? await this.deps.repository.findOwn(uploadId, owner) : undefined;
    if (!row) throw errors.notFound('upload', uploadId);
    return row;
  }

  async recordOffset(id: string, offsetBytes: number): Promise<void> {
    await this.deps.repository.recordOffset(id, offsetBytes);
  }

  /**
   * The last byte arrived: read the bytes once, hashing them on their way to a temporary storage key.
   * The row says `finished` only once the storage write succeeded; tus's copy goes after the response
   * (dropTusCopy), since tus still reads it while answering.
   */
  async finish(id: string): Promise<void> {
    const hash = createHash('sha256');
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        callback(null, chunk);
      },
    });
    const tempKey = tempKeyOf(id);
    const source = this.datastore.read(id);
    source.once('error', (error) => hashing.destroy(error));
    await this.deps.storage.put(tempKey, source.pipe(hashing));
    const now = this.deps.clock.now();
    await this.deps.repository.markFinished(id, {
      tempKey,
      sha256: hash.digest('hex'),
      finishedAt: now,
      // a finished upload waits this long to be taken, then it is removed like an unfinished one
      expiresAt: new Date(now.getTime() + this.deps.settings.uploadExpiryHours * HOUR_MS),
    });
  }

  /** Removes tus's copy of a finished upload; one that cannot be removed is left to the expiry job. */
  async dropTusCopy(id: string): Promise<void> {
    await this.datastore
      .remove(id)
      .catch((error: unknown) =>
        this.deps.logger.warn({ err: error, uploadId: id }, "could not remove a finished upload's tus file"),
      );
  }

  async take(actor: Actor, uploadId: string): Promise<CompletedUpload> {
    const owner = this.ownerOf(actor);
    const row = isUuid(uploadId)
      ? await this.deps.repository.takeFinished(uploadId, owner, this.deps.clock.now())
      : undefined;
    if (!row || !row.tempKey || !row.sha256) throw errors.notFound('upload', uploadId);
    return {
      id: row.id,
      tempKey: row.tempKey,
      sizeBytes: row.sizeBytes,
      sha256: row.sha256,
      fileName: row.fileName,
      giveBack: () => this.deps.repository.restore(row.whole),
    };
  }

  /** Terminates the actor's upload (tus DELETE once finished): its row and its temporary file. */
  async discard(id: string): Promise<void> {
    const row = await this.deps.repository.delete(id);
    if (row?.tempKey) await this.deps.storage.delete(row.tempKey);
    await this.datastore.remove(id).catch(() => undefined); // a finished upload has no tus file left
  }

  /** Removes uploads past their expiry (unfinished, or finished and never taken): row, tus file, temp key. */
  async removeExpired(batchSize = 100): Promise<number> {
    let removed = 0;
    for (;;) {
      const expired = await this.deps.repository.expired(this.deps.clock.now(), batchSize);
      for (const row of expired) {
        // the file first: a crash between the two leaves a row the next run removes again
        await this.datastore.remove(row.id).catch(() => undefined);
        if (row.tempKey) await this.deps.storage.delete(row.tempKey);
        await this.deps.repository.delete(row.id);
        removed += 1;
      }
      if (expired.length < batchSize) return removed;
    }
  }

  /** Temporary keys still owned by a finished upload (the sweeper must keep them). */
  pendingTempKeys(): Promise<Set<string>> {
    return this.deps.repository.pendingTempKeys();
  }

  newId(): string {
    return randomUUID();
  }
}
