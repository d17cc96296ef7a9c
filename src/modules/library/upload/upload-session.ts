// One multipart request's upload: the temporary keys its parts were written to, their limits, and the
// first fatal failure (a part over its limit, the body over its bound). A fatal failure is answered at
// once, without reading the rest of the body; every temporary key is removed whatever happens.
import type { FileStorage } from '../../../integrations/storage/file-storage.ts';
import type { AppError } from '../../../shared/errors.ts';

export class UploadSession {
  readonly tempKeys = new Set<string>();
  failure: AppError | undefined;
  private notify: ((error: AppError) => void) | undefined;
  /** Settles (rejects) on the first fatal failure; never resolves. */
  readonly failed: Promise<never>;

  constructor(private readonly limits: Readonly<Record<string, number>>) {
    this.failed = new Promise<never>((_resolve, reject) => (this.notify = reject));
    this.failed.catch(() => undefined); // observed by whoever races it
  }

  limitFor(field: string): number {
    return this.limits[field] ?? 0;
  }

  track(key: string): void {
    this.tempKeys.add(key);
  }

  fail(error: AppError): void {
    if (this.failure) return;
    this.failure = error;
    this.notify?.(error);
  }

  /** Removes every temporary key this request wrote (idempotent). */
  async discard(storage: FileStorage, keep: ReadonlySet<string> = new Set()): Promise<void> {
    await Promise.all(
      [...this.tempKeys].filter((key) => !keep.has(key)).map((key) => storage.delete(key).catch(() => undefined)),
    );
  }
}
