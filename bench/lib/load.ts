import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** CPU milliseconds the server spent per request, when measured. */
  cpuMsPerRequest?: number;
}

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections?: number;
  durationSeconds?: number;
}

/** Runs the load and charges the server process's CPU time to the requests it served. */
export async function measure(options: LoadOptions, server: { cpuSeconds(): number }): Promise<LoadResult> {
  const before = server.cpuSeconds();
  const result = await runLoad(options);
  const total = result.requestsPerSecond * (options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 10));
  return { ...result, cpuMsPerRequest: ((server.cpuSeconds() - before) * 1000) / Math.max(1, total) };
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    headers: options.headers,
    connections: options.connections ?? 32,
    duration: options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 10),
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

/** A short unmeasured run so JIT, pools and caches are warm on both sides. */
export async function warmUp(options: LoadOptions): Promise<void> {
  await runLoad({ ...options, durationSeconds: 3 });
}
