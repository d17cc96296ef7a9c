// Benchmarks measure the service as production runs it: the compiled JavaScript in dist/ (the Docker
// image's `node dist/src/main.js`), not the TypeScript loaded through tsx, whose transpiled output
// wraps every function in a naming helper and cost about a quarter of a light request's CPU.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Runs `npm run build` once (bench/run.ts builds before the first benchmark and tells its children). */
export function ensureProductionBuild(): void {
  if (process.env.BENCH_BUILT === '1') return;
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error('npm run build failed: the benchmarks measure the compiled service');
  process.env.BENCH_BUILT = '1';
}
