// One benchmark table: every bench calls record() where it decides met or missed. Under bench/run.ts
// (which names a file in BENCH_RESULTS_FILE for its children) each figure is one JSON line appended to
// that file; run.ts reads them all once every bench has run and writes bench/results/latest.{md,json}.
// A bench run alone (no run.ts) records nothing: its own console output already says everything.
import { appendFileSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

export const RESULTS_FILE_ENV = 'BENCH_RESULTS_FILE';

export interface Figure {
  /** What was measured, e.g. "GET /api/members page 40". */
  scenario: string;
  /** Which figure of the scenario, e.g. "req/s" or "p95 ms". */
  figure: string;
  value: number;
  unit?: string;
  /** The same figure for the baseline, measured in the same run (absent when the target is absolute). */
  baseline?: number;
  /** The figure the target applies to when it is a ratio (value / baseline, or as the bench defines it). */
  ratio?: number;
  /** The target as written, e.g. ">= 0.5 x baseline" or "< 100 ms". */
  target: string;
  /** null when the bench states no target (the figure is informational). */
  met: boolean | null;
}

export interface RecordedFigure extends Figure {
  /** The bench file that recorded it. */
  bench: string;
}

export function record(figure: Figure): void {
  const file = process.env[RESULTS_FILE_ENV];
  if (!file) return;
  const line: RecordedFigure = { bench: basename(process.argv[1] ?? 'unknown'), ...figure };
  // one small write per line: appends from one process at a time (run.ts runs benches in turn)
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

export function readFigures(file: string): RecordedFigure[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as RecordedFigure);
}

const num = (n: number | undefined) =>
  n === undefined || !Number.isFinite(n)
    ? '-'
    : Number.isInteger(n)
      ? String(n)
      : Math.abs(n) >= 100
        ? n.toFixed(0)
        : n.toFixed(2);
const cell = (s: string) => s.replaceAll('|', '\\|');

export interface BenchRun {
  bench: string;
  exitCode: number | null;
  seconds: number;
}

/** The Markdown table: one row per figure, then one line per bench with how it ended. */
export function toMarkdown(figures: RecordedFigure[], runs: BenchRun[], startedAt: string): string {
  const lines = [
    `# Benchmarks, run of ${startedAt}`,
    '',
    '| bench | scenario | figure | value | baseline (same run) | ratio | target | met |',
    '|---|---|---|---:|---:|---:|---|---|',
    ...figures.map(
      (f) =>
        `| ${f.bench.replace(/\.bench\.ts$/, '')} | ${cell(f.scenario)} | ${cell(f.figure)}${f.unit ? ` (${cell(f.unit)})` : ''} | ${num(f.value)} | ${num(f.baseline)} | ${num(f.ratio)} | ${cell(f.target)} | ${f.met === null ? '-' : f.met ? 'met' : '**MISSED**'} |`,
    ),
    '',
    `${figures.filter((f) => f.met).length} of ${figures.filter((f) => f.met !== null).length} figures with a target met it.`,
    '',
    '| bench | exit code | seconds | figures |',
    '|---|---:|---:|---:|',
    ...runs.map(
      (r) =>
        `| ${r.bench} | ${r.exitCode ?? 'killed'} | ${r.seconds.toFixed(0)} | ${figures.filter((f) => f.bench === r.bench).length} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
