// What is costly to build and may never be needed (the SVG sanitiser's jsdom window, the Admin
// Portal) is built on first use, once, so no process (API, worker, CLI, test file) pays for it at start.

/** A value made on first use and shared by every caller; a failure is not kept, so the next call tries again. */
export function lazily<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () =>
    (value ??= make().catch((error: unknown) => {
      value = undefined;
      throw error;
    }));
}
