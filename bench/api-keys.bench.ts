// Foundation benchmark: an authenticated GET /api/api-keys (JWT of a client admin, 60 keys, page of 25)
// against raw node:http + pg running the same list SQL. Target: >= 40% throughput, p99 <= 2x.
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { deriveKey, hashPassword, sha256 } from '../src/shared/crypto.ts';
import { createBenchDatabase } from './lib/database.ts';
import { warmUp } from './lib/load.ts';
import { alternatingRounds } from './lib/rounds.ts';
import { compare } from './lib/report.ts';
import { spawnServer } from './lib/server.ts';

const APP_SECRET = 'bench-secret-bench-secret-bench-secret-00';

const db = await createBenchDatabase();
try {
  const organizationId = randomUUID();
  const userId = randomUUID();
  await db.pool.query(`INSERT INTO organizations (id, name, slug, plan) VALUES ($1, 'Bench', 'bench', 'enterprise')`, [
    organizationId,
  ]);
  await db.pool.query(
    `INSERT INTO users (id, organization_id, first_name, last_name, email, role, status, password_hash)
     VALUES ($1, $2, 'Bench', 'Admin', 'bench@example.test', 'ROLE_CLIENT_ADMIN', 'active', $3)`,
    [userId, organizationId, await hashPassword('bench')],
  );
  await db.pool.query(
    `INSERT INTO api_keys (organization_id, name, prefix, key_hash, created_at)
     SELECT $1, 'key ' || g, 'gh_live_' || g, $2 || g, now() - g * interval '1 minute' FROM generate_series(1, 60) g`,
    [organizationId, sha256('bench')],
  );
  const token = await new SignJWT({ org: organizationId, roles: ['ROLE_CLIENT_ADMIN'], amr: ['pwd'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(userId)
    .setIssuer('guildhall')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(deriveKey(APP_SECRET, 'jwt'));

  // The enterprise quota (25,000/h) would stop a 10 s run at 32 connections: benchmarks measure speed.
  const app = await spawnServer('app.server.ts', {
    DATABASE_URL: db.url,
    APP_SECRET,
    RATE_LIMIT_ENTERPRISE: '100000000',
    JOBS_ENABLED: 'false',
  });
  const baseline = await spawnServer('api-keys.baseline.ts', { DATABASE_URL: db.url });
  try {
    const appTarget = { url: `${app.url}/api/api-keys?page=2`, headers: { Authorization: `Bearer ${token}` } };
    const baselineTarget = { url: `${baseline.url}/api-keys?organizationId=${organizationId}&page=2` };
    await warmUp(appTarget);
    await warmUp(baselineTarget);
    const result = await alternatingRounds(
      { target: appTarget, server: app },
      { target: baselineTarget, server: baseline },
    );
    const { met } = compare(
      `GET /api/api-keys (JWT, page 2 of 60 keys), 32 connections, median of ${result.rounds} rounds`,
      result.app,
      result.baseline,
      {
        minThroughputRatio: 0.4,
        maxP99Ratio: 2,
      },
    );
    if (!met) process.exitCode = 1;
  } finally {
    await app.stop();
    await baseline.stop();
  }
} finally {
  await db.drop();
}
