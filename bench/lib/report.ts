import type { LoadResult } from './load.ts';
import { record } from './results.ts';

export interface Targets {
  /** app req/s divided by baseline req/s must be at least this. */
  minThroughputRatio: number;
  /** app p99 divided by baseline p99 must be at most this. */
  maxP99Ratio: number;
}

export interface Comparison {
  name: string;
  throughputRatio: number;
  p99Ratio: number;
  met: boolean;
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);

export function compare(name: string, app: LoadResult, baseline: LoadResult, targets: Targets): Comparison {
  const throughputRatio = app.requestsPerSecond / baseline.requestsPerSecond;
  // A sub-millisecond baseline p99 rounds to 0 or 1 ms; floor it at 1 ms so the ratio stays meaningful.
  const p99Ratio = Math.max(app.p99, 1) / Math.max(baseline.p99, 1);
  const met = throughputRatio >= targets.minThroughputRatio && p99Ratio <= targets.maxP99Ratio;
  console.log(`\n## ${name}`);
  console.log('| | req/s | p50 ms | p99 ms | server CPU ms/req | errors | non-2xx |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [label, r] of [
    ['Guildhall', app],
    ['baseline (node:http + pg)', baseline],
  ] as const) {
    console.log(
      `| ${label} | ${fmt(r.requestsPerSecond, 0)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.cpuMsPerRequest === undefined ? '-' : fmt(r.cpuMsPerRequest, 2)} | ${r.errors} | ${r.non2xx} |`,
    );
  }
  console.log(
    `throughput ratio ${fmt(throughputRatio, 2)} (target >= ${targets.minThroughputRatio}), ` +
      `p99 ratio ${fmt(p99Ratio, 2)} (target <= ${targets.maxP99Ratio}): ${met ? 'TARGET MET' : 'TARGET MISSED'}`,
  );
  record({
    scenario: name,
    figure: 'throughput',
    unit: 'req/s',
    value: app.requestsPerSecond,
    baseline: baseline.requestsPerSecond,
    ratio: throughputRatio,
    target: `ratio >= ${targets.minThroughputRatio}`,
    met: throughputRatio >= targets.minThroughputRatio,
  });
  record({
    scenario: name,
    figure: 'p99 latency',
    unit: 'ms',
    value: app.p99,
    baseline: baseline.p99,
    ratio: p99Ratio,
    target: `ratio <= ${targets.maxP99Ratio}`,
    met: p99Ratio <= targets.maxP99Ratio,
  });
  return { name, throughputRatio, p99Ratio, met };
}
