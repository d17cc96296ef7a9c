// The worker entry point (src/worker.ts) as a child process: for the worker's own tests
// (tests/jobs/worker.test.ts) and the fault tests that SIGKILL it and start it again on the same
// database (tests/faults/).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import PgBoss from 'pg-boss';
import { eventually } from '../factories/webhook-receiver.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

export type WorkerProcess = ReturnType<typeof startWorker>;

/** `cwd`: where the worker runs (its `.env`); `nodeArgs`: more flags for node, before the script. */
export function startWorker(env: Record<string, string>, { cwd = root, nodeArgs = [] as string[] } = {}) {
  // tsx and the script resolved here, so a cwd outside the project still finds them
  const args = ['--import', import.meta.resolve('tsx'), ...nodeArgs, path.join(root, 'src/worker.ts')];
  const child = spawn(process.execPath, args, {
    cwd,
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
  // the signal's name when a signal ended it (null as a code said nothing of which)
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

/**
 * A SIGKILLed worker's job, as pg-boss finds it once its expiry has passed (moved into the past here
 * instead of waited for): pg-boss's own expiry fails it to a retry, whose delay is moved into the past
 * too. Asserts the killed job was still active and is retried.
 */
export async function expireKilledJob(
  sql: { rows<T = unknown>(text: string, values?: unknown[]): Promise<T[]> },
  connectionString: string,
  name: string,
): Promise<void> {
  const active = await sql.rows(
    `UPDATE pgboss.job SET started_on = now() - expire_in - interval '1 second'
      WHERE name = $1 AND state = 'active' RETURNING id`,
    [name],
  );
  assert.equal(active.length, 1, `the killed ${name} job is still active in the queue`);
  const boss = new PgBoss({ connectionString, supervise: false, schedule: false, migrate: false, max: 1 });
  await boss.start();
  try {
    await boss.expire();
  } finally {
    await boss.stop({ graceful: false });
  }
  const retry = await sql.rows(
    `UPDATE pgboss.job SET start_after = now() WHERE name = $1 AND state = 'retry' RETURNING id`,
    [name],
  );
  assert.equal(retry.length, 1, `the expired ${name} job is retried`);
}
