// Where library files live, behind one small interface: local disk by default (DATA_DIR/files),
// S3-compatible object storage when S3_BUCKET is set. Callers write to a temporary key, commit their
// row, then promote the file to its final key; a sweeper removes temporary keys a crash left behind, so
// a file is visible only once its row commits and a failure leaves no orphan.
import type { Readable } from 'node:stream';

export interface StoredObject {
  key: string;
  sizeBytes: number;
  modifiedAt: Date;
}

/** Inclusive byte range, as in HTTP's `Range: bytes=start-end`. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface FileStorage {
  /** Which backend, for /health and logs. */
  readonly kind: 'local' | 's3';
  /** Streams `body` to `key` (replacing it); resolves once stored, with the size. A failed write leaves nothing at `key`. */
  put(key: string, body: Readable, options?: { contentType?: string }): Promise<{ sizeBytes: number }>;
  /** The object's bytes, all or one range; rejects with a `not_found` AppError when absent. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  stat(key: string): Promise<StoredObject | null>;
  /** Moves an object to its final key (the promotion after a row commits). */
  move(from: string, to: string): Promise<void>;
  /** Idempotent: deleting what is not there is not an error. */
  delete(key: string): Promise<void>;
  /** Every object under a prefix (the sweeper's walk). */
  list(prefix: string): AsyncIterable<StoredObject>;
}

/** Temporary keys: what an upload writes before its row commits; the sweeper removes old ones. */
export const TEMP_PREFIX = 'tmp/';

const KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,511}$/;

/** Keys are built by the code, never taken from a client; this refuses anything that could escape the root. */
export function assertSafeKey(key: string): void {
  if (!KEY.test(key) || key.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    throw new Error(`unsafe storage key: ${JSON.stringify(key)}`);
  }
}
