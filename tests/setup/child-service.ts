// Runs the real entry point (src/main.ts) as a child process, for start-up and shutdown tests.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface ChildService {
  process: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * `cwd`: where the service runs (its `.env` and relative paths); the project root unless given.
 * `launcher: 'npm'` runs `npm start` in the project root, as a newcomer does (npm, its shell, the service).
 */
export async function startChildService(
  env: Record<string, string>,
  timeoutMs = 90_000,
  cwd = root,
  launcher: 'node' | 'npm' = 'node',
): Promise<ChildService> {
  // tsx resolved here, so a cwd outside the project still finds it
  const [command, args] =
    launcher === 'npm'
      ? ['npm', ['start', '--silent']]
      : [process.execPath, ['--import', import.meta.resolve('tsx'), path.join(root, 'src/main.ts')]];
  const child = spawn(command, args, {
    cwd: launcher === 'npm' ? root : cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in time:\n${output}`)), timeoutMs);
    const poll = setInterval(() => {
      const match = /"port":(\d+)[^\n]*Guildhall listening/.exec(output);
      if (match) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    }, 50);
    void exited.then((code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening:\n${output}`));
    });
  });
  return { process: child, port, output: () => output, exited };
}

/** Runs the entry point expecting it to stop on its own (a refused start): its exit code and output. */
export async function runChildServiceToExit(
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  return { code, output };
}
