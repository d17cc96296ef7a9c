// Users datagrid over 100,000 users on the PostgreSQL server:
//  1. GET /api/admin/users (page 1, default order, with its count) vs raw node:http + pg running the
//     same SQL: p99 and throughput ratios.
//  2. The CSV export of all 100,000 users vs PostgreSQL's own COPY (same query) TO STDOUT WITH CSV
//     streamed to a client (pg-copy-streams): rows/s ratio and the server's peak RSS growth.
// Targets: list p99 <= 2x the baseline's; export >= half the COPY rows/s with RSS growth < 64 MB.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { SignJWT } from 'jose';
import { to as copyTo } from 'pg-copy-streams';
import { exportQuery } from '../src/modules/users/user-export.ts';
import { systemActor } from '../src/shared/access/actor.ts';
import { scopeFor } from '../src/shared/access/scope.ts';
import { DEFAULT_USER_SORT } from '../src/modules/users/user-query.repository.ts';
import { deriveKey } from '../src/shared/crypto.ts';
import { createBenchDatabase, type BenchDatabase } from './lib/database.ts';
import { measure, warmUp } from './lib/load.ts';
import { compare } from './lib/report.ts';
import { spawnServer, type RunningServer } from './lib/server.ts';
import { record } from './lib/results.ts';

const APP_SECRET = 'bench-secret-bench-secret-bench-secret-00';
const USERS = Number(process.env.BENCH_USERS ?? 100_000);
const RSS_LIMIT_MB = 64;

async function seed(db: BenchDatabase): Promise<string> {
  await db.pool.query(
    `INSERT INTO organizations (name, slug) SELECT 'Association ' || g, 'assoc-' || g FROM generate_series(1, 200) g`,
  );
  const roles = `(ARRAY['ROLE_MEMBER','ROLE_MEMBER','ROLE_MEMBER','ROLE_CLIENT_USER','ROLE_CLIENT_ADMIN','ROLE_SPONSOR_USER','ROLE_SPONSOR_ADMIN'])[1 + g % 7]`;
  await db.pool.query(
    `INSERT INTO users (organization_id, first_name, last_name, email, phone, role, status, last_login_at, created_at)
     SELECT o.id, (ARRAY['Ada','Grace','Alan','Edsger','Barbara','Donald','Frances','Ken'])[1 + g % 8], 'Member ' || g,
            'user' || g || '@bench.test', '+1 555 ' || lpad((g % 10000)::text, 4, '0'), ${roles},
            (ARRAY['active','active','active','inactive','suspended','pending'])[1 + g % 6],
            CASE WHEN g % 4 = 0 THEN NULL ELSE now() - (g % 1000) * interval '1 hour' END,
            now() - g * interval '1 minute'
       FROM generate_series(1, $1) g JOIN LATERAL (SELECT id FROM organizations ORDER BY slug OFFSET g % 200 LIMIT 1) o ON true`,
    [USERS - 1],
  );
  const adminId = randomUUID();
  await db.pool.query(
    `INSERT INTO users (id, first_name, last_name, email, role, status) VALUES ($1, 'Bench', 'Admin', 'admin@bench.test', 'ROLE_PLATFORM_ADMIN', 'active')`,
    [adminId],
  );
  await db.pool.query('VACUUM ANALYZE users'); // the steady state autovacuum keeps: visibility map set, statistics fresh
  await db.pool.query('VACUUM ANALYZE organizations');
  return adminId;
}

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) / 1024;
}

/** Downloads the export, counting rows, while sampling the server's RSS. */
async function timeExport(
  app: RunningServer,
  token: string,
): Promise<{ rows: number; seconds: number; peakGrowthMb: number; bytes: number }> {
  const pid = app.child.pid!;
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 10);
  const started = performance.now();
  const { rows, bytes } = await new Promise<{ rows: number; bytes: number }>((resolve, reject) => {
    http
      .get(`${app.url}/api/admin/users?format=csv`, { headers: { Authorization: `Bearer ${token}` } }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`export answered ${res.statusCode}`));
        let newlines = 0;
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines++;
        });
        res.on('end', () => resolve({ rows: newlines - 1, bytes: size }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  return { rows, seconds, bytes, peakGrowthMb: peak - before };
}

/** PostgreSQL's own CSV of the same query, streamed to this process. */
async function timeCopy(db: BenchDatabase): Promise<{ rows: number; seconds: number; bytes: number }> {
  const client = await db.pool.connect();
  try {
    const { text } = exportQuery(scopeFor(systemActor(), 'user', 'read'), {}, DEFAULT_USER_SORT);
    const started = performance.now();
    const stream = client.query(copyTo(`COPY (${text}) TO STDOUT WITH (FORMAT csv, HEADER)`));
    let newlines = 0;
    let bytes = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines++;
    }
    return { rows: newlines - 1, seconds: (performance.now() - started) / 1000, bytes };
  } finally {
    client.release();
  }
}

const db = await createBenchDatabase();
try {
  console.log(`seeding ${USERS} users...`);
  const adminId = await seed(db);
  const token = await new SignJWT({ org: null, roles: ['ROLE_PLATFORM_ADMIN'], amr: ['pwd'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(adminId)
    .setIssuer('guildhall')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(deriveKey(APP_SECRET, 'jwt'));

  const app = await spawnServer('app.server.ts', { DATABASE_URL: db.url, APP_SECRET, JOBS_ENABLED: 'false' });
  const baseline = await spawnServer('users.baseline.ts', { DATABASE_URL: db.url });
  try {
    const appTarget = { url: `${app.url}/api/admin/users?page=1`, headers: { Authorization: `Bearer ${token}` } };
    const baselineTarget = { url: `${baseline.url}/users?page=1` };
    await warmUp(appTarget);
    await warmUp(baselineTarget);
    const baselineResult = await measure(baselineTarget, baseline);
    const appResult = await measure(appTarget, app);
    const list = compare(
      `GET /api/admin/users (page 1 of ${USERS}, with count), 32 connections`,
      appResult,
      baselineResult,
      { minThroughputRatio: 0.4, maxP99Ratio: 2 },
    );

    await timeExport(app, token); // warm: JIT, pool, the table in shared buffers
    await timeCopy(db);
    const copies = [await timeCopy(db), await timeCopy(db), await timeCopy(db)];
    const exports = [await timeExport(app, token), await timeExport(app, token), await timeExport(app, token)];
    const best = <T extends { seconds: number }>(runs: T[]) => runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
    const copy = best(copies);
    const exported = best(exports);
    const peakGrowth = Math.max(...exports.map((e) => e.peakGrowthMb));
    const ratio = exported.rows / exported.seconds / (copy.rows / copy.seconds);
    const met = ratio >= 0.5 && peakGrowth < RSS_LIMIT_MB && exported.rows === USERS;
    console.log(`\n## CSV export of ${USERS} users (best of 3)`);
    console.log('| | rows | seconds | rows/s | MB | server peak RSS growth MB |');
    console.log('|---|---:|---:|---:|---:|---:|');
    console.log(
      `| Guildhall GET /api/admin/users?format=csv | ${exported.rows} | ${exported.seconds.toFixed(2)} | ${(exported.rows / exported.seconds).toFixed(0)} | ${(exported.bytes / 1e6).toFixed(1)} | ${peakGrowth.toFixed(1)} |`,
    );
    console.log(
      `| baseline COPY (same query) TO STDOUT CSV | ${copy.rows} | ${copy.seconds.toFixed(2)} | ${(copy.rows / copy.seconds).toFixed(0)} | ${(copy.bytes / 1e6).toFixed(1)} | - |`,
    );
    console.log(
      `rows/s ratio ${ratio.toFixed(2)} (target >= 0.5), peak RSS growth ${peakGrowth.toFixed(1)} MB (target < ${RSS_LIMIT_MB}): ${met ? 'TARGET MET' : 'TARGET MISSED'}`,
    );
    const scenario = `CSV export of ${USERS} users (best of 3) vs COPY TO STDOUT CSV`;
    record({
      scenario,
      figure: 'throughput',
      unit: 'rows/s',
      value: exported.rows / exported.seconds,
      baseline: copy.rows / copy.seconds,
      ratio,
      target: `ratio >= 0.5, all ${USERS} rows`,
      met: ratio >= 0.5 && exported.rows === USERS,
    });
    record({
      scenario,
      figure: 'server peak RSS growth',
      unit: 'MB',
      value: peakGrowth,
      target: `< ${RSS_LIMIT_MB} MB`,
      met: peakGrowth < RSS_LIMIT_MB,
    });
    if (!list.met || !met) process.exitCode = 1;
  } finally {
    await app.stop();
    await baseline.stop();
  }
} finally {
  await db.drop();
}
