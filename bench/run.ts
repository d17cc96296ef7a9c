// npm run bench: every bench/*.bench.ts in turn, each in its own process (`npm run bench -- <name>` for
// the ones whose file name contains <name>). Each bench records its figures (bench/lib/results.ts) into
// one file named for it here; after the last one this writes bench/results/latest.md and latest.json
// (one table: each figure, its baseline from the same run, the ratio, the target, met or not) and prints
// the Markdown.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureProductionBuild } from './lib/build.ts';
import { type BenchRun, RESULTS_FILE_ENV, readFigures, toMarkdown } from './lib/results.ts';

const dir = fileURLToPath(new URL('./', import.meta.url));
const only = process.argv[2];
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts') && (!only || f.includes(only)))
  .sort();
ensureProductionBuild(); // once, for every benchmark below (they inherit BENCH_BUILT)
const startedAt = new Date().toISOString();
const work = mkdtempSync(join(tmpdir(), 'guildhall-bench-'));
const resultsFile = join(work, 'figures.jsonl');
const runs: BenchRun[] = [];
for (const file of files) {
  console.log(`\n# ${file}`);
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--import', 'tsx', `${dir}${file}`], {
    stdio: 'inherit',
    env: { ...process.env, [RESULTS_FILE_ENV]: resultsFile },
  });
  runs.push({ bench: file, exitCode: result.status, seconds: (performance.now() - started) / 1000 });
}
const figures = readFigures(resultsFile);
rmSync(work, { recursive: true, force: true });
const markdown = toMarkdown(figures, runs, startedAt);
const out = join(dir, 'results');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'latest.md'), markdown);
writeFileSync(
  join(out, 'latest.json'),
  `${JSON.stringify({ startedAt, only: only ?? null, runs, figures }, null, 2)}\n`,
);
console.log(`\n${markdown}`);
console.log(`written: ${join(out, 'latest.md')}, ${join(out, 'latest.json')}`);
process.exit(runs.some((r) => r.exitCode !== 0) ? 1 : 0);
