// GET /api/members?status=active&order[lastName]=asc&page=40 over 100,000 members (API key), against
// raw node:http + pg running the same SQL (page and total count).
// Target at 32 connections: >= 70% of the baseline's throughput, p99 <= 1.5x.
// Measured in alternating rounds compared by medians (bench/lib/rounds.ts).
import { createBenchDatabase } from './lib/database.ts';
import { warmUp } from './lib/load.ts';
import { seedMembers } from './lib/members.ts';
import { alternatingRounds } from './lib/rounds.ts';
import { compare } from './lib/report.ts';
import { spawnServer } from './lib/server.ts';

const APP_SECRET = 'bench-secret-bench-secret-bench-secret-00';
const MEMBERS = 100_000;

const db = await createBenchDatabase();
try {
  const { organizationId, apiKey } = await seedMembers(db, MEMBERS);

  // The enterprise quota (25,000/h) would stop a 10 s run at 32 connections: benchmarks measure speed.
  const app = await spawnServer('app.server.ts', {
    DATABASE_URL: db.url,
    APP_SECRET,
    RATE_LIMIT_ENTERPRISE: '100000000',
    JOBS_ENABLED: 'false',
  });
  const baseline = await spawnServer('members.baseline.ts', { DATABASE_URL: db.url });
  try {
    const appTarget = {
      url: `${app.url}/api/members?status=active&order[lastName]=asc&page=40`,
      headers: { Authorization: `Bearer ${apiKey}` },
    };
    const baselineTarget = { url: `${baseline.url}/members?organizationId=${organizationId}&status=active&page=40` };
    await warmUp(appTarget);
    await warmUp(baselineTarget);
    const {
      app: appMedian,
      baseline: baselineMedian,
      rounds,
    } = await alternatingRounds({ target: appTarget, server: app }, { target: baselineTarget, server: baseline });
    const result = compare(
      `GET /api/members?status=active&order[lastName]=asc&page=40 (${MEMBERS.toLocaleString('en')} members, API key), 32 connections, median of ${rounds} rounds`,
      appMedian,
      baselineMedian,
      { minThroughputRatio: 0.7, maxP99Ratio: 1.5 },
    );
    if (!result.met) process.exitCode = 1;
  } finally {
    await app.stop();
    await baseline.stop();
  }
} finally {
  await db.drop();
}
