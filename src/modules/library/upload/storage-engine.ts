// A multer StorageEngine that streams each file part to FileStorage at a temporary key while hashing
// and counting it: nothing is held whole in memory. A part over its limit fails the put (the storage
// leaves nothing at the key) and fails the request's upload session, which answers 413 at once.
import { randomUUID } from 'node:crypto';
import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import type { Request } from 'express';
import type { StorageEngine } from 'multer';
import { TEMP_PREFIX, type FileStorage } from '../../../integrations/storage/file-storage.ts';
import { AppError } from '../../../shared/errors.ts';
import type { UploadSession } from './upload-session.ts';

/** What the engine adds to multer's file object. */
export interface StagedPart {
  tempKey: string;
  size: number;
  sha256: string;
}

export const newTempKey = () => `${TEMP_PREFIX}${randomUUID()}`;

export function streamingStorage(storage: FileStorage, sessionOf: (req: Request) => UploadSession): StorageEngine {
  return {
    _handleFile(req, file, callback) {
      const session = sessionOf(req);
      const maxBytes = session.limitFor(file.fieldname);
      const key = newTempKey();
      const hash = createHash('sha256');
      let size = 0;
      const meter = new Transform({
        highWaterMark: 1024 * 1024,
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          if (size > maxBytes)
            return done(
              new AppError('payload_too_large', `The ${file.fieldname} may not exceed ${maxBytes} bytes`, {
                errors: [{ field: file.fieldname, message: `exceeds ${maxBytes} bytes` }],
              }),
            );
          hash.update(chunk);
          done(null, chunk);
        },
      });
      session.track(key);
      // the part may fail before put() attaches its pipeline (a truncated body ends at once): the error
      // stays on the destroyed meter for the pipeline to report, and must not be thrown meanwhile
      meter.on('error', () => undefined);
      file.stream.once('error', (error) => meter.destroy(error));
      file.stream.pipe(meter);
      storage.put(key, meter).then(
        async () => {
          // the request failed while this part was being written: its bytes are not wanted
          if (session.failure) {
            await storage.delete(key).catch(() => undefined);
            return callback(session.failure);
          }
          callback(null, {
            tempKey: key,
            size,
            sha256: hash.digest('hex'),
          } satisfies StagedPart as Partial<Express.Multer.File>);
        },
        (error: unknown) => {
          if (error instanceof AppError && error.code === 'payload_too_large') session.fail(error);
          // drain what is left of the part so multer can finish (or be cut off by the 413)
          file.stream.resume();
          callback(error as Error);
        },
      );
    },
    _removeFile(_req, file, callback) {
      const key = (file as unknown as Partial<StagedPart>).tempKey;
      if (!key) return callback(null);
      storage.delete(key).then(() => callback(null), callback);
    },
  };
}
