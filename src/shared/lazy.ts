// Heavy libraries a request may never need (jsdom, ExcelJS, pdf.js, the AWS SDK...) are imported on
// first use, so every process (API, worker, CLI, test file) starts without paying for them.

/** A value made on first use and shared by every caller; a failure is not kept, so the next call tries again. */
export function lazily<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () =>
    (value ??= make().catch((error: unknown) => {
      value = undefined;
      throw error;
    }));
}
