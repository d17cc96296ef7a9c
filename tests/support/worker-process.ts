// The worker entry point (src/worker.ts) as a child process, for the fault tests that SIGKILL it and
// start it again on the same database (tests/faults/).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually } from '../factories/webhook-receiver.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

export type WorkerProcess = ReturnType<typeof startWorker>;

export function startWorker(env: Record<string, string>) {
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
