// GET /api/members/{id} (API key) over 100,000 members, against raw node:http + pg running the same
// SQL (one row by id and organization). The SQL is cheap, so this measures the app's own cost per
// request: authentication, contract validation, routing, the scope, the mapper.
// Target at 32 connections: >= 50% of the baseline's throughput, p99 <= 2x.
// Measured in alternating rounds compared by medians (bench/lib/rounds.ts).
import { createBenchDatabase } from './lib/database.ts';
import { warmUp } from './lib/load.ts';
import { seedMembers } from './lib/members.ts';
import { compare } from './lib/report.ts';
import { alternatingRounds } from './lib/rounds.ts';
import { spawnServer } from './lib/server.ts';

const APP_SECRET = 'bench-secret-bench-secret-bench-secret-00';
const MEMBERS = 100_000;

const db = await createBenchDatabase();
try {
  const { organizationId, apiKey } = await seedMembers(db, MEMBERS);
  const { rows } = await db.pool.query<{ id: string }>(
    'SELECT id FROM members WHERE organization_id = $1 ORDER BY last_name OFFSET 5000 LIMIT 1',
    [organizationId],
  );
  const memberId = rows[0]!.id;

  // The enterprise quota (25,000/h) would stop a 10 s run at 32 connections: benchmarks measure speed.
  const app = await spawnServer('app.server.ts', {
    DATABASE_URL: db.url,
    APP_SECRET,
    RATE_LIMIT_ENTERPRISE: '100000000',
    JOBS_ENABLED: 'false',
  });
  const baseline = await spawnServer('members.baseline.ts', { DATABASE_URL: db.url });
  try {
    const appTarget = { url: `${app.url}/api/members/${memberId}`, headers: { Authorization: `Bearer ${apiKey}` } };
    const baselineTarget = { url: `${baseline.url}/members/${memberId}?organizationId=${organizationId}` };
    await warmUp(appTarget);
    await warmUp(baselineTarget);
    const {
      app: appMedian,
      baseline: baselineMedian,
      rounds,
      ratios,
    } = await alternatingRounds({ target: appTarget, server: app }, { target: baselineTarget, server: baseline });
    const result = compare(
      `GET /api/members/{id} (${MEMBERS.toLocaleString('en')} members, API key), 32 connections, median of ${rounds} rounds`,
      appMedian,
      baselineMedian,
      { minThroughputRatio: 0.5, maxP99Ratio: 2 },
    );
    const sorted = [...ratios].sort((a, b) => a - b);
    console.log(
      `per-round throughput ratios: min ${sorted[0]!.toFixed(2)}, median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)}, max ${sorted.at(-1)!.toFixed(2)}`,
    );
    if (!result.met) process.exitCode = 1;
  } finally {
    await app.stop();
    await baseline.stop();
  }
} finally {
  await db.drop();
}
