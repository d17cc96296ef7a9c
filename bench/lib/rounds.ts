// The machine is shared and both servers compete with PostgreSQL for its cores, so the baseline and
// the app are measured in alternating rounds (BENCH_ROUNDS, default 3) and compared by their medians.
import { measure, type LoadOptions, type LoadResult } from './load.ts';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export function medianOf(runs: LoadResult[]): LoadResult {
  return {
    requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
    cpuMsPerRequest: median(runs.map((r) => r.cpuMsPerRequest ?? 0)),
  };
}

type Server = { cpuSeconds(): number };

/** Runs `rounds` alternating measurements and returns the medians of each side. */
export async function alternatingRounds(
  app: { target: LoadOptions; server: Server },
  baseline: { target: LoadOptions; server: Server },
  rounds = Number(process.env.BENCH_ROUNDS ?? 3),
): Promise<{ app: LoadResult; baseline: LoadResult; rounds: number; ratios: number[] }> {
  const appRuns: LoadResult[] = [];
  const baselineRuns: LoadResult[] = [];
  for (let round = 1; round <= rounds; round++) {
    const b = await measure(baseline.target, baseline.server);
    const a = await measure(app.target, app.server);
    baselineRuns.push(b);
    appRuns.push(a);
    console.log(
      `round ${round}: app ${a.requestsPerSecond.toFixed(0)} req/s p99 ${a.p99} ms; baseline ${b.requestsPerSecond.toFixed(0)} req/s p99 ${b.p99} ms; ` +
        `ratios ${(a.requestsPerSecond / b.requestsPerSecond).toFixed(2)} / ${(Math.max(a.p99, 1) / Math.max(b.p99, 1)).toFixed(2)}`,
    );
  }
  const ratios = appRuns.map((a, i) => a.requestsPerSecond / baselineRuns[i]!.requestsPerSecond);
  return { app: medianOf(appRuns), baseline: medianOf(baselineRuns), rounds, ratios };
}
