// The bytes one library write stages: file parts, a taken resumable upload, the copies inspection
// makes. Each is promoted to its final key after the rows commit; whatever was not promoted is
// removed when the write ends, whether it succeeded or failed.
import type { FileStorage } from '../../../integrations/storage/file-storage.ts';
import type { Actor } from '../../../shared/access/actor.ts';
import { AppError } from '../../../shared/errors.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { CompletedUpload, CompletedUploads } from '../uploads/completed-upload.ts';
import { inspectStagedFile, type InspectedFile, type StagedFile } from './file-inspection.ts';
import type { ResourceFormat } from '../resource.model.ts';
import { newTempKey } from './storage-engine.ts';

export interface StagedFilesDeps {
  storage: FileStorage;
  logger: Logger;
  /** Finished resumable uploads; absent: `uploadId` is refused. */
  uploads?: CompletedUploads;
}

export class StagedFiles {
  private readonly keys = new Set<string>();
  private readonly promotions: Array<{ from: string; to: string }> = [];
  /** The resumable upload this write took, if any; given back if the write fails before its rows commit. */
  private taken?: CompletedUpload;
  private committed = false;

  constructor(
    private readonly deps: StagedFilesDeps,
    parts: ReadonlyArray<StagedFile | undefined>,
  ) {
    for (const part of parts) if (part) this.keys.add(part.tempKey);
  }

  /** A finished resumable upload of the actor's, taken once; its bytes are staged from now on. */
  async takeUpload(actor: Actor, uploadId: string): Promise<StagedFile> {
    if (!this.deps.uploads)
      throw new AppError('unprocessable', 'Resumable uploads are not available', {
        errors: [{ field: 'uploadId', message: 'resumable uploads are not available' }],
      });
    const upload = await this.deps.uploads.take(actor, uploadId);
    this.taken = upload;
    this.keys.add(upload.tempKey);
    return { tempKey: upload.tempKey, sizeBytes: upload.sizeBytes, sha256: upload.sha256, fileName: upload.fileName };
  }

  /** Its type decided from its bytes (415 when not allowed); any copy inspection makes is staged too. */
  async inspect(file: StagedFile, field: string, allowed: readonly ResourceFormat[]): Promise<InspectedFile> {
    const inspected = await inspectStagedFile(this.deps.storage, file, {
      field,
      allowed,
      newTempKey: () => {
        const key = newTempKey();
        this.keys.add(key);
        return key;
      },
    });
    this.keys.add(inspected.tempKey);
    return inspected;
  }

  /** Moves `from` to `to` once the rows are committed (promote). */
  promoteAfterCommit(from: string, to: string): void {
    this.promotions.push({ from, to });
  }

  /** After the commit: the staged bytes become the rows' files. */
  async promote(): Promise<void> {
    this.committed = true;
    for (const { from, to } of this.promotions) {
      try {
        await this.deps.storage.move(from, to);
        this.keys.delete(from);
      } catch (error) {
        // the row is committed: leave the temp key for a retry by hand; the sweeper removes it later
        this.deps.logger.error({ err: error, from, to }, 'could not promote an uploaded file to its final key');
        throw error;
      }
    }
  }

  /**
   * Removes every staged key not promoted (in `finally`: after a success, nothing is left). A taken
   * upload of a write that failed before its rows committed (a refused field, a 415) goes back with
   * its bytes, so the client can send the write again without sending hundreds of megabytes again.
   */
  async discard(): Promise<void> {
    const taken = this.taken;
    if (taken && !this.committed && (await this.deps.storage.stat(taken.tempKey).catch(() => null))) {
      try {
        await taken.giveBack();
        this.keys.delete(taken.tempKey);
      } catch (error) {
        this.deps.logger.warn({ err: error, uploadId: taken.id }, 'could not give back a taken upload');
      }
    }
    await Promise.all(
      [...this.keys].map((key) =>
        this.deps.storage
          .delete(key)
          .catch((error: unknown) => this.deps.logger.warn({ err: error, key }, 'could not remove a staged upload')),
      ),
    );
  }
}
