// How the sync cuts its work: HubSpot's batch endpoints take at most 100 inputs, and every call goes
// through the portal's budget first (`Call`).
export const BATCH_SIZE = 100;

/** Runs one HubSpot call once the portal's budget grants it. */
export type Call = <T>(work: () => Promise<T>) => Promise<T>;

export const chunks = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
