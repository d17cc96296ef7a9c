// The worker process (src/worker.ts) as a child process on the same database as an API process
// whose workers are off: the API only enqueues, the worker runs the jobs and stops gracefully.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { bearer, buildUser, tokenFor } from '../factories/index.ts';
import { eventually, startReceiver, type Receiver } from '../factories/webhook-receiver.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

function startWorker(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_ENV: 'test', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // a test file stopped by its timeout runs no after hook: do not leave a worker behind
  process.once('exit', () => child.kill('SIGKILL'));
  const ready = async () => {
    await eventually(async () => /Guildhall worker running jobs/.test(output) || (child.exitCode !== null && Promise.reject(new Error(`worker exited:\n${output}`))), 120_000);
  };
  return { child, exited, ready, output: () => output };
}

describe('the worker process', () => {
  let t: TestApp;
  let receiver: Receiver;
  let dataDir: string;
  let worker: ReturnType<typeof startWorker>;
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
    const webhook = await t.http.post('/api/webhooks').set(bearer(token)).send({ url: receiver.url, events: ['member.created'] }).expect(201);
    const member = await t.http.post('/api/members').set(bearer(token)).send({ firstName: 'Wendy', lastName: 'Worker', email: 'wendy@example.test' }).expect(201);
    const [delivery] = await receiver.waitFor(1, 60_000);
    const payload = new Webhook(webhook.body.secret).verify(delivery!.body, delivery!.headers) as { type: string; data: { id: string } };
    assert.equal(payload.type, 'member.created');
    assert.equal(payload.data.id, member.body.id);
    const done = await eventually(async () => {
      const [first] = (await t.http.get(`/api/webhooks/${webhook.body.id}/deliveries`).set(bearer(token)).expect(200)).body.data;
      return first?.status === 'succeeded' && first;
    });
    assert.equal(done.attemptCount, 1);
  });

  it('when SIGTERM arrives while a job runs, then the job completes and the worker exits 0', async () => {
    slow = true;
    requested = false;
    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    const token = await tokenFor(t, admin);
    const webhook = await t.http.post('/api/webhooks').set(bearer(token)).send({ url: receiver.url, events: ['member.created'] }).expect(201);
    await t.http.post('/api/members').set(bearer(token)).send({ firstName: 'Late', lastName: 'Shift', email: 'late@example.test' }).expect(201);
    await eventually(async () => requested, 60_000); // the worker is now inside the job, waiting on the receiver
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exited, 0, worker.output());
    assert.match(worker.output(), /"msg":"stopped"/);
    const [delivery] = (await t.http.get(`/api/webhooks/${webhook.body.id}/deliveries`).set(bearer(token)).expect(200)).body.data;
    assert.equal(delivery.status, 'succeeded', 'the running attempt was recorded before the worker exited');
    assert.equal(delivery.attemptCount, 1);
  });

  it('when started without DATABASE_URL or APP_SECRET, then it refuses with a configuration error', async () => {
    const embedded = startWorker({ DATA_DIR: dataDir, APP_SECRET: t.config.appSecret! });
    const unsigned = startWorker({ DATA_DIR: dataDir, DATABASE_URL: t.db.url });
    assert.equal(await embedded.exited, 78);
    assert.match(embedded.output(), /DATABASE_URL is required for the worker/);
    assert.equal(await unsigned.exited, 78);
    assert.match(unsigned.output(), /APP_SECRET is required/);
  });
});
