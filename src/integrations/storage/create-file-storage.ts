import type { LibrarySettings } from '../../config.ts';
import type { FileStorage } from './file-storage.ts';
import { LocalFileStorage } from './local-file-storage.ts';

/** Local disk unless S3 is configured (the S3 backend: s3-file-storage.ts). */
export function createFileStorage(settings: LibrarySettings): FileStorage {
  return new LocalFileStorage(settings.localRoot);
}
