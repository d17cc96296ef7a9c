// The worker process (src/worker.ts) as a child process on the same database as an API process
// whose workers are off: the API only enqueues, the worker runs the jobs and stops gracefully.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { bearer, buildUser, tokenFor } from '../factories/index.ts';
import { eventually, startReceiver, type Receiver } from '../factories/webhook-receiver.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { startWorker, type WorkerProcess } from '../support/worker-process.ts';

describe('the worker process', () => {
  let t: TestApp;
  let receiver: Receiver;
  let dataDir: string;
  let worker: WorkerProcess;
  let slow = false;
  let requested = false;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'guildhall-worker-'));
    // the API side: jobs off, as in docker-compose's app service
    t = await startTestApp({ env: { JOBS_ENABLED: 'false', WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' }, workers: false });
    receiver = await startReceiver(async () => {
      requested = true;
      if (slow) await new Promise((resolve) => setTimeout(resolve, 2_000));
      return 204;
    });
    // the embedded database is served on loopback, so the child reaches the same one as the API
    worker = startWorker({
      DATABASE_URL: t.db.url,
      DATA_DIR: dataDir,
      APP_SECRET: t.config.appSecret!,
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
      JOBS_POLLING_SECONDS: '0.5',
    });
    await worker.ready();
  });
  after(async () => {
    worker?.child.kill('SIGKILL');
    await receiver?.close();
    await t?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('when the API process (workers off) queues a webhook delivery, then the worker process delivers it', async () => {
    assert.equal(t.config.jobs.enabled, false);
    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    const token = await tokenFor(t, admin);
    const webhook = await t.http
      .post('/api/webhooks')
      .set(bearer(token))
      .send({ url: receiver.url, events: ['member.created'] })
      .expect(201);
    const member = await t.http
      .post('/api/members')
      .set(bearer(token))
      .send({ firstName: 'Wendy', lastName: 'Worker', email: 'wendy@example.test' })
      .expect(201);
    const [delivery] = await receiver.waitFor(1, 60_000);
    const payload = new Webhook(webhook.body.secret).verify(delivery!.body, delivery!.headers) as {
      type: string;
      data: { id: string };
    };
    assert.equal(payload.type, 'member.created');
    assert.equal(payload.data.id, member.body.id);
    const done = await eventually(async () => {
      const [first] = (await t.http.get(`/api/webhooks/${webhook.body.id}/deliveries`).set(bearer(token)).expect(200))
        .body.data;
      return first?.status === 'succeeded' && first;
    });
    assert.equal(done.attemptCount, 1);
  });

  it('when SIGTERM arrives while a job runs, then the job completes and the worker exits 0', async () => {
    slow = true;
    requested = false;
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
      .send({ firstName: 'Late', lastName: 'Shift', email: 'late@example.test' })
      .expect(201);
    await eventually(async () => requested, 60_000); // the worker is now inside the job, waiting on the receiver
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exited, 0, worker.output());
    assert.match(worker.output(), /"msg":"stopped"/);
    const [delivery] = (await t.http.get(`/api/webhooks/${webhook.body.id}/deliveries`).set(bearer(token)).expect(200))
      .body.data;
    assert.equal(delivery.status, 'succeeded', 'the running attempt was recorded before the worker exited');
    assert.equal(delivery.attemptCount, 1);
  });

  it('when its settings are in ./.env, then it reads them like npm start does', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'guildhall-worker-dotenv-'));
    try {
      // DATABASE_URL and APP_SECRET only in the file: without it the worker refuses to start (exit 78)
      await writeFile(path.join(cwd, '.env'), `DATABASE_URL=${t.db.url}\nAPP_SECRET=${t.config.appSecret}\n`);
      const fromFile = startWorker({ DATA_DIR: dataDir, JOBS_POLLING_SECONDS: '0.5' }, { cwd });
      await fromFile.ready();
      fromFile.child.kill('SIGTERM');
      assert.equal(await fromFile.exited, 0, fromFile.output());
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('when a promise rejects unhandled, then it logs it at fatal, stops gracefully and exits 1', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'guildhall-worker-rejection-'));
    try {
      // a rejection nobody handles, on demand: SIGUSR2 once the worker is running
      const hook = path.join(dir, 'reject-on-sigusr2.mjs');
      await writeFile(hook, `process.on('SIGUSR2', () => { Promise.reject(new Error('a job forgot its catch')); });\n`);
      const failing = startWorker(
        { DATABASE_URL: t.db.url, DATA_DIR: dataDir, APP_SECRET: t.config.appSecret!, JOBS_POLLING_SECONDS: '0.5' },
        { nodeArgs: ['--import', pathToFileURL(hook).href] },
      );
      await failing.ready();
      failing.child.kill('SIGUSR2');
      assert.equal(await failing.exited, 1, failing.output());
      const fatal = failing
        .output()
        .split('\n')
        .find((line) => line.includes('"level":60'));
      assert.ok(fatal, `no fatal line in:\n${failing.output()}`);
      assert.match(fatal, /unhandled promise rejection/);
      assert.match(fatal, /a job forgot its catch/);
      assert.match(failing.output(), /"msg":"stopped"/, 'it stopped gracefully before exiting');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('when started without DATABASE_URL or APP_SECRET, then it refuses with a configuration error', async () => {
    // run where no .env can supply what the environment leaves out (the project folder may hold one)
    const cwd = dataDir;
    const embedded = startWorker({ DATA_DIR: dataDir, APP_SECRET: t.config.appSecret! }, { cwd });
    const unsigned = startWorker({ DATA_DIR: dataDir, DATABASE_URL: t.db.url }, { cwd });
    assert.equal(await embedded.exited, 78);
    assert.match(embedded.output(), /DATABASE_URL is required for the worker/);
    assert.equal(await unsigned.exited, 78);
    assert.match(unsigned.output(), /APP_SECRET is required/);
  });
});
