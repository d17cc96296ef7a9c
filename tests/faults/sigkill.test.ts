// test-runner: own process (it starts and SIGKILLs child processes of the service)
// SIGKILL in the middle of work, then a restart: nothing lost, nothing done twice. The in-process
// API (workers off) queues; a worker process (src/worker.ts, as in production's worker service) runs
// the jobs and is killed with SIGKILL, which no handler sees, and started again on the same database.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { bearer, buildUser, tokenFor } from '../factories/index.ts';
import { eventually, startReceiver, type Receiver } from '../factories/webhook-receiver.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

function startWorker(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(root, 'src/worker.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  // a test file stopped by its timeout runs no after hook: do not leave a worker behind
  process.once('exit', () => child.kill('SIGKILL'));
  const ready = () =>
    eventually(
      async () =>
        /Guildhall worker running jobs/.test(output) ||
        (child.exitCode !== null && Promise.reject(new Error(`worker exited:\n${output}`))),
      120_000,
    );
  return { child, exited, ready, output: () => output };
}

describe('SIGKILL, then a restart', () => {
  let t: TestApp;
  let receiver: Receiver;
  let dataDir: string;
  let workerEnv: Record<string, string>;
  let worker: ReturnType<typeof startWorker> | undefined;
  /** Set when the first attempt reaches the receiver; the receiver answers it only once released. */
  let firstArrived = false;
  let releaseFirst: () => void = () => {};

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'guildhall-sigkill-'));
    t = await startTestApp({ env: { JOBS_ENABLED: 'false', WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' }, workers: false });
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
});
