// GET /api/members?status=active&order[lastName]=asc&page=40 over 100,000 members (API key), against
// raw node:http + pg running the same SQL (page and total count).
// Target at 32 connections: >= 70% of the baseline's throughput, p99 <= 1.5x.
// Measured in alternating rounds compared by medians (bench/lib/rounds.ts).
import { randomUUID } from 'node:crypto';
import { randomToken, sha256 } from '../src/shared/crypto.ts';
import { createBenchDatabase } from './lib/database.ts';
import { warmUp } from './lib/load.ts';
import { alternatingRounds } from './lib/rounds.ts';
import { compare } from './lib/report.ts';
import { spawnServer } from './lib/server.ts';

const APP_SECRET = 'bench-secret-bench-secret-bench-secret-00';
const MEMBERS = 100_000;

const db = await createBenchDatabase();
try {
  const organizationId = randomUUID();
  const apiKey = `gh_live_${randomToken(24)}`;
  await db.pool.query(`INSERT INTO organizations (id, name, slug, plan) VALUES ($1, 'Bench', 'bench', 'enterprise')`, [organizationId]);
  await db.pool.query(`INSERT INTO api_keys (organization_id, name, prefix, key_hash) VALUES ($1, 'bench', $2, $3)`, [organizationId, apiKey.slice(0, 12), sha256(apiKey)]);
  // One statement: varied last names, 70% active, a membership type and some custom fields each.
  const seeded = performance.now();
  await db.pool.query(
    `INSERT INTO members (organization_id, first_name, last_name, email, phone, tier, membership_type, status, joined_at, renewal_date, custom_fields)
     SELECT $1, initcap(substr(md5('f' || g), 1, 7)), initcap(substr(md5('l' || g), 1, 9)), 'member' || g || '@example.test',
            '+1 555 ' || lpad((g % 10000)::text, 4, '0'),
            CASE WHEN g % 10 = 0 THEN 'premium' ELSE 'member' END,
            (ARRAY['Individual', 'Student', 'Corporate', 'Retired'])[1 + g % 4],
            (ARRAY['active', 'active', 'active', 'active', 'active', 'active', 'active', 'pending', 'lapsed', 'cancelled'])[1 + g % 10],
            date '2015-01-01' + (g % 3650), date '2026-01-01' + (g % 365), jsonb_build_object('chapter', 'Chapter ' || (g % 40))
       FROM generate_series(1, $2::int) g`,
    [organizationId, MEMBERS],
  );
  await db.pool.query('VACUUM ANALYZE members');
  console.log(`seeded ${MEMBERS} members in ${Math.round(performance.now() - seeded)} ms`);

  // The enterprise quota (25,000/h) would stop a 10 s run at 32 connections: benchmarks measure speed.
  const app = await spawnServer('app.server.ts', { DATABASE_URL: db.url, APP_SECRET, RATE_LIMIT_ENTERPRISE: '100000000', JOBS_ENABLED: 'false' });
  const baseline = await spawnServer('members.baseline.ts', { DATABASE_URL: db.url });
  try {
    const appTarget = { url: `${app.url}/api/members?status=active&order[lastName]=asc&page=40`, headers: { Authorization: `Bearer ${apiKey}` } };
    const baselineTarget = { url: `${baseline.url}/members?organizationId=${organizationId}&status=active&page=40` };
    await warmUp(appTarget);
    await warmUp(baselineTarget);
    const { app: appMedian, baseline: baselineMedian, rounds } = await alternatingRounds({ target: appTarget, server: app }, { target: baselineTarget, server: baseline });
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
