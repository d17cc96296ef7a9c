// The storage sweeper: what a crash between "write the file" and "commit the row" (or between "delete
// the row" and "delete its files") leaves behind. Removes temporary keys (`tmp/`) and half-written
// `.part` files older than LIBRARY_TEMP_MAX_AGE_MINUTES, and every file under a resource's prefix
// whose resource row no longer exists. A finished resumable upload's temp key is kept until it expires,
// and for a while after a write takes it (below).
import { defineJob, payloadOf } from '../../jobs/job.ts';
import { TEMP_PREFIX, type FileStorage, type StoredObject } from '../../integrations/storage/file-storage.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Sql } from '../../shared/sql.ts';
import { UPLOADS_TEMP_PREFIX, type UploadService } from './uploads/upload.service.ts';

// the payload enqueue() takes for this name (see jobs/job.ts: JobPayloads)
declare module '../../jobs/job.ts' {
  interface JobPayloads {
    'library.storage-sweep': object;
  }
}

export interface SweeperDeps {
  storage: FileStorage;
  sql: Sql;
  clock: Clock;
  uploads: Pick<UploadService, 'pendingTempKeys'>;
  tempMaxAgeMinutes: number;
  uploadExpiryHours: number;
}

export interface SweepResult {
  temporary: number;
  partial: number;
  orphaned: number;
}

const RESOURCE_FILE =
  /^orgs\/[0-9a-f-]{36}\/resources\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\//;
const PART = /\.[0-9a-f-]{36}\.part$/;
const BATCH = 500;

export async function sweepStorage({
  storage,
  sql,
  clock,
  uploads,
  tempMaxAgeMinutes,
  uploadExpiryHours,
}: SweeperDeps): Promise<SweepResult> {
  const cutoff = clock.now().getTime() - tempMaxAgeMinutes * 60_000;
  const old = (object: StoredObject) => object.modifiedAt.getTime() < cutoff;
  // A write that takes a finished upload deletes its row and reads its bytes for seconds or minutes,
  // and their age counts from the upload's end, so pending rows cannot protect them. Any take happens
  // before the upload expires: its bytes are kept for the expiry plus the usual age, and a crashed
  // write's leftovers go that much later.
  const uploadCutoff = cutoff - uploadExpiryHours * 3_600_000;
  const oldTemp = (object: StoredObject) =>
    object.key.startsWith(UPLOADS_TEMP_PREFIX) ? object.modifiedAt.getTime() < uploadCutoff : old(object);
  const result: SweepResult = { temporary: 0, partial: 0, orphaned: 0 };

  const pending = await uploads.pendingTempKeys();
  for await (const object of storage.list(TEMP_PREFIX)) {
    if (oldTemp(object) && !pending.has(object.key)) {
      await storage.delete(object.key);
      result.temporary += 1;
    }
  }

  // one walk of the resources' files; existence is checked a batch of resource ids at a time
  let batch: Array<{ object: StoredObject; resourceId: string }> = [];
  const flush = async () => {
    const ids = [...new Set(batch.map((entry) => entry.resourceId))];
    const existing = new Set(
      (await sql.rows<{ id: string }>('SELECT id::text AS id FROM resources WHERE id = ANY($1::uuid[])', [ids])).map(
        (row) => row.id,
      ),
    );
    for (const { object, resourceId } of batch) {
      if (!existing.has(resourceId)) {
        await storage.delete(object.key);
        result.orphaned += 1;
      }
    }
    batch = [];
  };
  for await (const object of storage.list('orgs/')) {
    if (!old(object)) continue; // young files may belong to a row about to commit
    if (PART.test(object.key)) {
      await storage.delete(object.key);
      result.partial += 1;
      continue;
    }
    const resourceId = RESOURCE_FILE.exec(object.key)?.[1];
    if (!resourceId) continue;
    batch.push({ object, resourceId });
    if (batch.length >= BATCH) await flush();
  }
  if (batch.length > 0) await flush();
  return result;
}

export const storageSweeperJob = defineJob({
  name: 'library.storage-sweep',
  payload: payloadOf<object>(),
  schedule: '17 * * * *',
  retry: { limit: 1, delaySeconds: 60, backoff: false },
  expireInSeconds: 30 * 60,
  handler:
    (deps: SweeperDeps) =>
    async (_data, { logger }) => {
      const result = await sweepStorage(deps);
      if (result.temporary + result.partial + result.orphaned > 0) logger.info(result, 'swept storage leftovers');
    },
});
