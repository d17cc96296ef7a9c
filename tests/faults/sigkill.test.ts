// test-runner: own process (it starts and SIGKILLs child processes of the service)
// test-runner: timeout 300 s (kills and restarts of child processes: minutes on a loaded 2-core machine)
// SIGKILL in the middle of work, then a restart: nothing lost, nothing done twice, nothing left
// behind. Child processes of the service are killed with SIGKILL (no handler sees it) and started
// again on the same database and folders: the worker (src/worker.ts) during a webhook delivery, the
// API (src/main.ts) during resumable (tus) uploads. The in-process test app shares the database and
// the library folders: it queues the webhook's delivery and runs the upload expiry job on its clock.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bearer, buildUser, tokenFor } from '../factories/index.ts';
import { eventually, startReceiver, type Receiver } from '../factories/webhook-receiver.ts';
import { startChildService, type ChildService } from '../setup/child-service.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { startWorker, type WorkerProcess } from '../support/worker-process.ts';

describe('SIGKILL, then a restart', () => {
  let t: TestApp;
  let receiver: Receiver;
  let dataDir: string;
  let workerEnv: Record<string, string>;
  let worker: WorkerProcess | undefined;
  let api: ChildService | undefined;
  let library: Record<string, string>;
  /** Set when the first attempt reaches the receiver; the receiver answers it only once released. */
  let firstArrived = false;
  let releaseFirst: () => void = () => {};

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'guildhall-sigkill-'));
    library = {
      LIBRARY_STORAGE_DIR: path.join(dataDir, 'files'),
      LIBRARY_UPLOADS_DIR: path.join(dataDir, 'uploads'),
      LIBRARY_UPLOAD_EXPIRY_HOURS: '2',
    };
    t = await startTestApp({
      env: { JOBS_ENABLED: 'false', WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', ...library },
      workers: false,
    });
    receiver = await startReceiver(async (attempt) => {
      if (attempt === 1) {
        firstArrived = true;
        await new Promise<void>((resolve) => (releaseFirst = resolve));
      }
      return 204;
    });
    workerEnv = {
      DATABASE_URL: t.db.url,
      DATA_DIR: dataDir,
      APP_SECRET: t.config.appSecret!,
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
      JOBS_POLLING_SECONDS: '0.5',
      WEBHOOKS_POLL_MS: '100',
    };
  });
  after(async () => {
    worker?.child.kill('SIGKILL');
    api?.process.kill('SIGKILL');
    releaseFirst();
    await receiver?.close();
    await t?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('when the worker is killed while a webhook delivery is in flight, then after a restart the receiver gets that one webhook-id again and it is recorded once as succeeded', async () => {
    worker = startWorker(workerEnv);
    await worker.ready();
    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    const token = await tokenFor(t, admin);
    const webhook = await t.http
      .post('/api/webhooks')
      .set(bearer(token))
      .send({ url: receiver.url, events: ['member.created'] })
      .expect(201);
    await t.http
      .post('/api/members')
      .set(bearer(token))
      .send({ firstName: 'Kim', lastName: 'Killed', email: 'kim.killed@example.test' })
      .expect(201);
    await eventually(async () => firstArrived, 60_000); // the worker is inside the POST, waiting on the receiver
    worker.child.kill('SIGKILL');
    assert.equal(await worker.exited, 'SIGKILL');
    releaseFirst(); // the receiver took it (2xx) but the worker never heard: at-least-once must send it again
    const [stranded] = (await t.http.get(`/api/webhooks/${webhook.body.id}/deliveries`).set(bearer(token)).expect(200))
      .body.data;
    assert.equal(stranded.status, 'pending', 'the killed attempt was never recorded');

    // The dead worker's claim is a lease (2 x WEBHOOKS_TIMEOUT_MS + 60 s): it is run out here instead
    // of waited for; claiming after it ran out is what the restarted worker is tested on.
    const [leased] = await t.db.sequelize.query(
      `UPDATE webhook_deliveries SET claimed_until = now() - interval '1 second'
        WHERE subscription_id = $1 AND claimed_until > now() RETURNING id`,
      { bind: [webhook.body.id] },
    );
    assert.equal(leased.length, 1, 'the killed worker held the delivery with a lease');
    worker = startWorker(workerEnv);
    await worker.ready();
    await receiver.waitFor(2, 60_000);
    const done = await eventually(async () => {
      const [delivery] = (
        await t.http.get(`/api/webhooks/${webhook.body.id}/deliveries`).set(bearer(token)).expect(200)
      ).body.data;
      return delivery?.status === 'succeeded' && delivery;
    }, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // nothing more goes out once it is recorded
    assert.equal(receiver.received.length, 2, 'sent by the killed attempt and once after the restart, no more');
    const ids = new Set(receiver.received.map((d) => d.headers['webhook-id']));
    assert.equal(ids.size, 1, 'both arrivals carry the same webhook-id: a receiver that dedupes on it acts once');
    assert.match([...ids][0]!, /^msg_/);
    const deliveries = (await t.http.get(`/api/webhooks/${webhook.body.id}/deliveries`).set(bearer(token)).expect(200))
      .body.data;
    assert.equal(deliveries.length, 1, 'one delivery row for the one event');
    assert.equal(done.status, 'succeeded');
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exited, 0, worker.output());
  });
  it('when the API is killed during resumable uploads, then after a restart one resumes from its offset and completes, and the abandoned one is removed at its expiry with its file', async () => {
    const startApi = () =>
      startChildService({
        NODE_ENV: 'test',
        DATABASE_URL: t.db.url,
        DATA_DIR: dataDir,
        APP_SECRET: t.config.appSecret!,
        JOBS_ENABLED: 'false',
        ...library,
      });
    api = await startApi();
    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    const auth = { ...bearer(await tokenFor(t, admin)), 'Tus-Resumable': '1.0.0' };
    const call = (method: string, url: string, headers: Record<string, string> = {}, body?: Buffer) =>
      fetch(`http://127.0.0.1:${api!.port}${url}`, {
        method,
        headers: { ...auth, ...headers },
        body: body && new Uint8Array(body),
      });
    const create = async (length: number) => {
      const res = await call('POST', '/api/uploads', { 'Upload-Length': String(length) });
      assert.equal(res.status, 201, await res.text());
      return new URL(res.headers.get('location')!, 'http://x').pathname;
    };
    const bytes = randomBytes(256 * 1024);
    const resumed = await create(bytes.length);
    const abandoned = await create(bytes.length);
    const fileOf = (location: string) => path.join(library.LIBRARY_UPLOADS_DIR!, location.split('/').pop()!);
    // Two PATCHes announce the whole file, send its first 96 KiB and wait: the API is killed mid-request.
    const first = 96 * 1024;
    const hanging = [resumed, abandoned].map((location) => {
      const req = http.request(`http://127.0.0.1:${api!.port}${location}`, {
        method: 'PATCH',
        headers: {
          ...auth,
          'Upload-Offset': '0',
          'Content-Type': 'application/offset+octet-stream',
          'Content-Length': String(bytes.length),
        },
      });
      req.on('error', () => undefined);
      req.write(bytes.subarray(0, first));
      return req;
    });
    const size = (location: string) => (existsSync(fileOf(location)) ? statSync(fileOf(location)).size : 0);
    await eventually(async () => size(resumed) === first && size(abandoned) === first, 30_000);
    api.process.kill('SIGKILL');
    assert.equal(await api.exited, null, 'killed by the signal');
    for (const req of hanging) req.destroy();

    api = await startApi();
    const head = await call('HEAD', resumed);
    assert.equal(head.status, 200);
    const offset = Number(head.headers.get('upload-offset'));
    assert.equal(offset, first, 'the bytes written before the kill count');
    const rest = await call(
      'PATCH',
      resumed,
      { 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' },
      bytes.subarray(offset),
    );
    assert.equal(rest.status, 204, await rest.text());
    assert.equal(rest.headers.get('upload-offset'), String(bytes.length));
    const id = resumed.split('/').pop()!;
    const row = await t.container.sql.one<{ status: string; sha256: string; tempKey: string }>(
      'SELECT status, sha256, temp_key AS "tempKey" FROM resource_uploads WHERE id = $1',
      [id],
    );
    assert.equal(row?.status, 'finished');
    assert.equal(row.sha256, createHash('sha256').update(bytes).digest('hex'), 'the file is whole, each byte once');
    assert.ok(await t.container.storage.stat(row.tempKey), 'the finished file is in storage for the resource service');

    // The abandoned one: its row and partial file stay until the expiry job's rule (expires_at passed)
    const abandonedId = abandoned.split('/').pop()!;
    const run = (await import('../../src/modules/library/uploads/upload-expiry.job.ts')).uploadExpiryJob.handler(
      t.container.services.uploads,
    );
    const context = { jobId: 'test', attempt: 0, logger: t.container.logger };
    await run({}, context);
    assert.ok(
      await t.container.sql.one('SELECT 1 FROM resource_uploads WHERE id = $1', [abandonedId]),
      'not expired yet',
    );
    assert.ok(existsSync(fileOf(abandoned)));
    t.clock.advance(3 * 3600_000);
    await run({}, context);
    assert.equal(await t.container.sql.one('SELECT 1 FROM resource_uploads WHERE id = $1', [abandonedId]), undefined);
    assert.equal(existsSync(fileOf(abandoned)), false, "the abandoned upload's partial file is gone");
    assert.equal(existsSync(`${fileOf(abandoned)}.json`), false, 'and its tus metadata');
    api.process.kill('SIGTERM');
    await api.exited;
    api = undefined;
  });
});
