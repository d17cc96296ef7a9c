// npm run bench -- scim: an initial directory sync through SCIM, as Entra ID runs one. 10,000
// POST /scim/v2/Users, then 10,000 PATCHes (Entra's capitalised "Replace" of a name), each at 16
// concurrent requests, against a baseline that writes the same rows as plain SQL (one statement per
// request; exactly what it holds is said above it below) over a pool of 16 connections in the same
// run. Target: >= 0.3x of the baseline's rate. Then the directory's users list (page 100; the
// directory then holds the app's and the baseline's 20,000 directory users) against the members list
// (page 100 of the 10,000 seeded members plus the 20,000 the two syncs created) on the same app, in
// alternating rounds: within 2x.
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import pg from 'pg';
import { deriveKey, randomToken, sha256 } from '../src/shared/crypto.ts';
import { createBenchDatabase } from './lib/database.ts';
import { warmUp } from './lib/load.ts';
import { seedMembers } from './lib/members.ts';
import { alternatingRounds } from './lib/rounds.ts';
import { compare } from './lib/report.ts';
import { spawnServer } from './lib/server.ts';
import { record } from './lib/results.ts';

const APP_SECRET = 'bench-secret-bench-secret-bench-secret-00';
const USERS = Number(process.env.BENCH_SCIM_USERS ?? 10_000);
const CONCURRENCY = 16;
const SCIM = 'application/scim+json';

/** Runs `count` tasks, `CONCURRENCY` at a time; the rate in tasks per second. */
async function rate(count: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await task(next++);
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

const db = await createBenchDatabase();
try {
  const { organizationId } = await seedMembers(db, USERS);
  const directoryId = randomUUID();
  const token = `scim_${randomToken(32)}`;
  await db.pool.query(
    `INSERT INTO directories (id, organization_id, name, provider, token_hash, token_prefix, group_roles, send_welcome)
     VALUES ($1, $2, 'Entra ID', 'scim', $3, $4, '[]', false)`,
    [directoryId, organizationId, sha256(token), token.slice(0, 12)],
  );
  const adminId = randomUUID();
  await db.pool.query(
    `INSERT INTO users (id, organization_id, first_name, last_name, email, role, status)
     VALUES ($1, $2, 'Bench', 'Admin', 'admin@bench.test', 'ROLE_CLIENT_ADMIN', 'active')`,
    [adminId, organizationId],
  );
  const jwt = await new SignJWT({ org: organizationId, roles: ['ROLE_CLIENT_ADMIN'], amr: ['pwd'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(adminId)
    .setIssuer('guildhall')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(deriveKey(APP_SECRET, 'jwt'));

  const app = await spawnServer('app.server.ts', {
    DATABASE_URL: db.url,
    APP_SECRET,
    RATE_LIMIT_ENTERPRISE: '100000000',
    SCIM_RATE_LIMIT_PER_MINUTE: '100000000',
    JOBS_ENABLED: 'false',
  });
  const pool = new pg.Pool({ connectionString: db.url, max: CONCURRENCY });
  try {
    const scim = (method: string, path: string, body: unknown) =>
      fetch(`${app.url}/scim/v2${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': SCIM },
        body: JSON.stringify(body),
      }).then(async (res) => {
        if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
        return res.json() as Promise<{ id: string }>;
      });
    const ids: string[] = [];
    // the app server's CPU per request (ms) while it serves each phase, to tell its cost from the database's
    const cpuMsPerRequest = (since: number) => ((app.cpuSeconds() - since) * 1000) / USERS;
    let cpuMark = app.cpuSeconds();
    const appCreates = await rate(USERS, async (i) => {
      const created = await scim('POST', '/Users', {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName: `person${i}@entra.bench`,
        externalId: `ext-${i}`,
        name: { givenName: 'Person', familyName: `Number ${i}` },
        emails: [{ type: 'work', value: `person${i}@entra.bench`, primary: true }],
        active: true,
      });
      ids[i] = created.id;
    });
    const createCpu = cpuMsPerRequest(cpuMark);
    cpuMark = app.cpuSeconds();
    const appPatches = await rate(USERS, async (i) => {
      await scim('PATCH', `/Users/${ids[i]}`, {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'Replace', path: 'name.givenName', value: `Renamed ${i}` }],
      });
    });
    const patchCpu = cpuMsPerRequest(cpuMark);

    // The same rows as plain SQL, one statement per request (no HTTP, no transaction beyond the
    // statement's own): per create, what POST /Users writes with a directory that sends no welcome
    // e-mail (the bench's): the account (users), its directory user, its member record, the audit
    // entries of both (directory.user_provisioned by the directory, member.created by the system) and
    // the member.created domain event; per rename, what the PATCH writes: the directory user, the
    // account and the audit entry (directory.user_updated). The reads the app makes around them (the
    // address's account, the member record to link, the webhook subscriptions) are not in it.
    const baselineIds: string[] = [];
    const baselineCreates = await rate(USERS, async (i) => {
      const { rows } = await pool.query<{ id: string }>(
        `WITH account AS (
           INSERT INTO users (organization_id, first_name, last_name, email, role, status, directory_id)
           VALUES ($1, 'Person', $2, $3, 'ROLE_MEMBER', 'active', $4) RETURNING id),
         directory_user AS (
           INSERT INTO directory_users (directory_id, organization_id, user_id, external_id, user_name, given_name, family_name, email, resource)
           SELECT $4, $1, account.id, $5, $3, 'Person', $2, $3, $6 FROM account RETURNING id),
         member AS (
           INSERT INTO members (organization_id, first_name, last_name, email, tier, status, user_id)
           SELECT $1, 'Person', $2, $3, 'member', 'active', account.id FROM account
           RETURNING id, first_name AS "firstName", last_name AS "lastName", email, tier, status, user_id AS "userId"),
         audit AS (
           INSERT INTO audit_log (organization_id, actor_type, actor_id, action, target_type, target_id, after)
           SELECT $1, 'directory', $4::text, 'directory.user_provisioned', 'user', account.id::text,
                  jsonb_build_object('directoryId', $4::uuid, 'userName', $3::text, 'created', true) FROM account
           UNION ALL
           SELECT $1, 'system', 'system', 'member.created', 'member', member.id::text, to_jsonb(member) FROM member),
         event AS (
           INSERT INTO domain_events (id, organization_id, type, actor_type, actor_id, data, occurred_at)
           SELECT gen_random_uuid(), $1, 'member.created', 'system', 'system', to_jsonb(member), now() FROM member)
         SELECT id FROM directory_user`,
        [
          organizationId,
          `Number ${i}`,
          `baseline${i}@entra.bench`,
          directoryId,
          `bext-${i}`,
          { userName: `baseline${i}@entra.bench`, name: { givenName: 'Person', familyName: `Number ${i}` } },
        ],
      );
      baselineIds[i] = rows[0]!.id;
    });
    const baselinePatches = await rate(USERS, async (i) => {
      await pool.query(
        `WITH directory_user AS (
           UPDATE directory_users SET given_name = $2, resource = jsonb_set(resource, '{name,givenName}', to_jsonb($2::text)),
                  version = version + 1, updated_at = now()
            WHERE id = $1 RETURNING user_id, organization_id, directory_id, user_name),
         account AS (
           UPDATE users SET first_name = $2, updated_at = now() FROM directory_user WHERE users.id = directory_user.user_id)
         INSERT INTO audit_log (organization_id, actor_type, actor_id, action, target_type, target_id, after)
         SELECT organization_id, 'directory', directory_id, 'directory.user_updated', 'user', user_id,
                jsonb_build_object('directoryId', directory_id, 'userName', user_name) FROM directory_user`,
        [baselineIds[i], `Renamed ${i}`],
      );
    });
    const createRatio = appCreates / baselineCreates;
    const patchRatio = appPatches / baselinePatches;
    console.log(`\n## SCIM initial sync: ${USERS} users, ${CONCURRENCY} concurrent requests`);
    console.log('| | Guildhall (SCIM) req/s | app server CPU ms/req | baseline (SQL) per s | ratio |');
    console.log('|---|---:|---:|---:|---:|');
    console.log(
      `| POST /Users | ${appCreates.toFixed(0)} | ${createCpu.toFixed(2)} | ${baselineCreates.toFixed(0)} | ${createRatio.toFixed(2)} |`,
    );
    console.log(
      `| PATCH /Users/{id} | ${appPatches.toFixed(0)} | ${patchCpu.toFixed(2)} | ${baselinePatches.toFixed(0)} | ${patchRatio.toFixed(2)} |`,
    );
    const writesMet = createRatio >= 0.3 && patchRatio >= 0.3;
    console.log(`target >= 0.3 for both: ${writesMet ? 'TARGET MET' : 'TARGET MISSED'}`);
    for (const [operation, value, baselineValue, ratio] of [
      ['POST /Users', appCreates, baselineCreates, createRatio],
      ['PATCH /Users/{id}', appPatches, baselinePatches, patchRatio],
    ] as const)
      record({
        scenario: `SCIM initial sync: ${USERS} users, ${CONCURRENCY} concurrent requests, ${operation} vs the same SQL`,
        figure: 'throughput',
        unit: 'req/s',
        value,
        baseline: baselineValue,
        ratio,
        target: 'ratio >= 0.3',
        met: ratio >= 0.3,
      });

    // both lists read tables the syncs just filled: statistics and visibility as autovacuum leaves them
    // after an initial sync (without it the first reads' cost depends on when autovacuum happened to run)
    await db.pool.query('VACUUM ANALYZE directory_users, members');
    const headers = { Authorization: `Bearer ${jwt}` };
    const usersTarget = { url: `${app.url}/api/directories/${directoryId}/users?page=100&itemsPerPage=100`, headers };
    const membersTarget = { url: `${app.url}/api/members?page=100&itemsPerPage=100`, headers };
    await warmUp(usersTarget);
    await warmUp(membersTarget);
    const result = await alternatingRounds(
      { target: usersTarget, server: app },
      { target: membersTarget, server: app },
    );
    const list = compare(
      `GET /api/directories/{id}/users page 100 of ${USERS * 2} against GET /api/members page 100 of ${USERS * 3} (baseline column), median of ${result.rounds} rounds`,
      result.app,
      result.baseline,
      { minThroughputRatio: 0.5, maxP99Ratio: 2 },
    );
    if (!writesMet || !list.met) process.exitCode = 1;
  } finally {
    await pool.end();
    await app.stop();
  }
} finally {
  await db.drop();
}
