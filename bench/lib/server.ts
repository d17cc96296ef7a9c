// Servers under test run in child processes, so the load generator (this process) does not share
// their event loop; the app and its baseline are measured under the same conditions.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ensureProductionBuild } from './build.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface RunningServer {
  url: string;
  child: ChildProcess;
  /** CPU seconds (user + system) the server process has used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
}

/** Starts `bench/servers/<script>`; the script prints `LISTENING <port>` when ready. */
export async function spawnServer(script: string, env: Record<string, string>): Promise<RunningServer> {
  if (script === 'app.server.ts') ensureProductionBuild();
  // BENCH_PROFILE=1 writes a V8 CPU profile of each server to bench/profiles/ (open it in Chrome DevTools).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=bench/profiles'] : [];
  const child = spawn(
    process.execPath,
    [
      ...profile,
      ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
      '--import',
      'tsx',
      `bench/servers/${script}`,
    ],
    {
      cwd: root,
      // production requires SMTP_URL; with JOBS_ENABLED=false nothing is ever sent to this address
      env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'silent', SMTP_URL: 'smtp://127.0.0.1:2525', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = /LISTENING (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    cpuSeconds: () => cpuSecondsOf(child.pid!),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
