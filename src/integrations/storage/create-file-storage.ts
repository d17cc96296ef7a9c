import type { LibrarySettings } from '../../config.ts';
import type { FileStorage } from './file-storage.ts';
import { LocalFileStorage } from './local-file-storage.ts';
import { S3FileStorage } from './s3-file-storage.ts';

/** S3-compatible object storage when S3_BUCKET is set, else local disk under LIBRARY_STORAGE_DIR. */
export function createFileStorage(settings: LibrarySettings): FileStorage {
  return settings.s3 ? new S3FileStorage(settings.s3) : new LocalFileStorage(settings.localRoot);
}
