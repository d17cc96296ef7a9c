// The storage sweeper against local disk and S3 (s3rver): a crash's leftovers (an old temp file, a
// half-written .part, the files of a resource whose row is gone) disappear; a live resource's files,
// young temp files, a finished upload waiting to be taken and one a write is still reading stay.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Resource } from '../../src/modules/library/resource.model.ts';
import { sweepStorage, storageSweeperJob } from '../../src/modules/library/storage-sweeper.job.ts';
import { buildOrganization } from '../factories/index.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { startS3StandIn, type S3StandIn } from './s3-stand-in.ts';

const put = (t: TestApp, key: string, text = 'x') => t.container.storage.put(key, Readable.from([Buffer.from(text)]));
const exists = async (t: TestApp, key: string) => (await t.container.storage.stat(key)) !== null;
/** What the job's handler is bound to in library.module.ts, with a 60-minute age and a 24-hour expiry. */
const sweeperDeps = (t: TestApp) => ({
  storage: t.container.storage,
  sql: t.container.sql,
  clock: t.clock,
  uploads: t.container.services.uploads,
  tempMaxAgeMinutes: 60,
  uploadExpiryHours: 24,
});

function sweeperSuite(name: string, env: () => Record<string, string>) {
  describe(`storage sweeper: ${name}`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp({ env: { LIBRARY_TEMP_MAX_AGE_MINUTES: '60', ...env() } });
    });
    after(() => t.close());

    it("when a crash left a temp file, a .part and files of a deleted resource, then they go and a live resource's files stay", async () => {
      const orgId = (await buildOrganization()).id;
      const live = await Resource.create({ organizationId: orgId, name: 'Live', type: 'document', format: 'pdf' });
      const goneId = randomUUID();
      const liveKeys = [
        `orgs/${orgId}/resources/${live.id}/v1/file.pdf`,
        `orgs/${orgId}/resources/${live.id}/thumbnails/v1.webp`,
      ];
      const goneKeys = [
        `orgs/${orgId}/resources/${goneId}/v1/file.pdf`,
        `orgs/${orgId}/resources/${goneId}/thumbnails/v1.webp`,
      ];
      const tempKey = `tmp/${randomUUID()}`;
      for (const key of [...liveKeys, ...goneKeys, tempKey]) await put(t, key);

      // a finished resumable upload, waiting for the resource service to take it
      const uploadId = randomUUID();
      const pendingKey = `tmp/uploads/${uploadId}`;
      await put(t, pendingKey);
      await t.container.sql.query(
        `INSERT INTO resource_uploads (id, organization_id, creator_type, creator_id, file_name, size_bytes, offset_bytes, status, temp_key, sha256, expires_at)
         VALUES ($1, $2, 'api_key', 'k', 'a.pdf', 1, 1, 'finished', $3, $4, now() + interval '1 day')`,
        [uploadId, orgId, pendingKey, 'a'.repeat(64)],
      );

      // young: nothing is touched yet (a row may be about to commit)
      const deps = sweeperDeps(t);
      assert.deepEqual(await sweepStorage(deps), { temporary: 0, partial: 0, orphaned: 0 });

      t.clock.advance(61 * 60_000);
      // through the job's handler, as the worker runs it
      await storageSweeperJob.handler(deps)({}, { jobId: 'test', attempt: 0, logger: t.container.logger });
      assert.equal(await exists(t, tempKey), false);
      for (const key of goneKeys) assert.equal(await exists(t, key), false, key);
      for (const key of liveKeys) assert.equal(await exists(t, key), true, key);
      assert.equal(await exists(t, pendingKey), true, 'a finished upload is kept until taken or expired');
      await t.container.sql.query('DELETE FROM resource_uploads WHERE id = $1', [uploadId]);
    });

    it("when a write has taken a finished upload and still reads it, then its bytes stay until the upload's expiry has passed", async () => {
      t.clock.set(new Date());
      // a write takes the upload (its row deleted, see takeFinished) an hour after it finished
      const takenKey = `tmp/uploads/${randomUUID()}`;
      await put(t, takenKey);
      const deps = sweeperDeps(t);
      t.clock.advance(61 * 60_000);
      assert.equal((await sweepStorage(deps)).temporary, 0);
      assert.equal(await exists(t, takenKey), true, 'swept under the write reading it');

      // the write crashed: its leftover goes once no take can have happened within the max age
      t.clock.advance(24 * 3_600_000);
      await sweepStorage(deps);
      assert.equal(await exists(t, takenKey), false);
    });

    if (name === 'local disk') {
      it('when a write was cut off, then its .part file is removed once old', async () => {
        const orgId = (await buildOrganization()).id;
        const live = await Resource.create({ organizationId: orgId, name: 'Live', type: 'document', format: 'pdf' });
        // LocalFileStorage writes `<key>.<uuid>.part` and renames it; a crash leaves the .part
        const partKey = `orgs/${orgId}/resources/${live.id}/v2/file.pdf.${randomUUID()}.part`;
        await put(t, partKey);
        t.clock.advance(61 * 60_000);
        const result = await sweepStorage(sweeperDeps(t));
        assert.equal(result.partial, 1);
        assert.equal(await exists(t, partKey), false);
      });
    }
  });
}

let s3: S3StandIn;
before(async () => {
  s3 = await startS3StandIn('sweeper');
});
after(() => s3.close());

sweeperSuite('local disk', () => ({}));
sweeperSuite('S3 (s3rver)', () => s3.env);
