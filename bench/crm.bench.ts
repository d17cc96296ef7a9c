// npm run bench -- crm: a full resync of 100,000 members (BENCH_CRM_MEMBERS) to a HubSpot stand-in
// that enforces 100 calls per rolling 10 seconds and answers 429 beyond. The most that budget allows
// is 100 records per batch call x 10 calls a second = 1,000 records a second: that is the baseline,
// and the figure is records per second as a ratio of it (target >= 0.9). The stand-in's counters show
// the budget was never exceeded (no 429, never more than 100 calls in any 10 s), and the server's RSS
// is sampled through the run in the worker that runs it (flat: the queue is read a batch at a time).
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import pg from 'pg';
import { deriveKey } from '../src/shared/crypto.ts';
import { startHubSpotStandIn } from '../tests/support/hubspot-stand-in.ts';
import { createBenchDatabase } from './lib/database.ts';
import { seedMembers } from './lib/members.ts';
import { spawnServer } from './lib/server.ts';
import { record } from './lib/results.ts';

const APP_SECRET = 'bench-secret-bench-secret-bench-secret-00';
const MEMBERS = Number(process.env.BENCH_CRM_MEMBERS ?? 100_000);
const BUDGET = 100;
const MOST_RECORDS_PER_SECOND = (BUDGET * 100) / 10;

const rssMb = (pid: number) => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
};

const db = await createBenchDatabase();
const hub = await startHubSpotStandIn({ budget: BUDGET });
try {
  const { organizationId } = await seedMembers(db, MEMBERS);
  const adminId = randomUUID();
  await db.pool.query(
    `INSERT INTO users (id, organization_id, first_name, last_name, email, role, status)
     VALUES ($1, $2, 'Bench', 'Admin', 'admin@bench.test', 'ROLE_CLIENT_ADMIN', 'active')`,
    [adminId, organizationId],
  );
  // the mapping's custom properties exist: every record carries every property
  for (const name of [
    'guildhall_membership_status',
    'guildhall_membership_tier',
    'guildhall_join_date',
    'guildhall_renewal_date',
    'guildhall_member_id',
  ]) {
    hub.properties.add(name);
  }
  const jwt = await new SignJWT({ org: organizationId, roles: ['ROLE_CLIENT_ADMIN'], amr: ['pwd'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(adminId)
    .setIssuer('guildhall')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(deriveKey(APP_SECRET, 'jwt'));

  const env = {
    DATABASE_URL: db.url,
    APP_SECRET,
    RATE_LIMIT_ENTERPRISE: '100000000',
    HUBSPOT_API_URL: hub.url,
    HUBSPOT_AUTHORIZE_URL: `${hub.url}/oauth/authorize`,
    HUBSPOT_CLIENT_ID: hub.clientId,
    HUBSPOT_CLIENT_SECRET: hub.clientSecret,
    CRM_BURST_LIMIT: String(BUDGET),
  };
  // as production runs it: the sync in the job worker, the API beside it (the worker creates the queue)
  const worker = await spawnServer('jobs.worker.ts', { ...env, JOBS_ENABLED: 'true' });
  const app = await spawnServer('app.server.ts', { ...env, JOBS_ENABLED: 'false' });
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  try {
    const started = await fetch(`${app.url}/api/crm/connection`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${jwt}` },
    });
    if (!started.ok) throw new Error(`connect: ${started.status} ${await started.text()}`);
    const { authorizeUrl } = (await started.json()) as { authorizeUrl: string };
    const consent = await fetch(authorizeUrl, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') as string);
    const began = performance.now();
    const landed = await fetch(`${app.url}${back.pathname}${back.search}`, { redirect: 'manual' });
    if (!landed.headers.get('location')?.endsWith('result=connected'))
      throw new Error(`callback: ${landed.headers.get('location')}`);

    const rss: number[] = [];
    for (;;) {
      const { rows } = await pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM crm_sync_queue WHERE organization_id = $1',
        [organizationId],
      );
      rss.push(rssMb(worker.child.pid as number));
      if (rows[0]!.n === 0 && hub.contacts.size >= MEMBERS) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const seconds = (performance.now() - began) / 1000;
    const rate = MEMBERS / seconds;
    const ratio = rate / MOST_RECORDS_PER_SECOND;
    const early = rss.slice(Math.floor(rss.length * 0.1), Math.floor(rss.length * 0.3));
    const late = rss.slice(Math.floor(rss.length * 0.7));
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
    const growth = median(late) - median(early);

    console.log(`\n## CRM full resync: ${MEMBERS} members, HubSpot budget ${BUDGET} calls / 10 s`);
    console.log('| | Guildhall | most the budget allows | ratio |');
    console.log('|---|---:|---:|---:|');
    console.log(`| records per second | ${rate.toFixed(0)} | ${MOST_RECORDS_PER_SECOND} | ${ratio.toFixed(2)} |`);
    console.log(
      `stand-in: ${hub.crmCalls()} calls, ${hub.rateLimited} answered 429, at most ${hub.maxInWindow()} in any 10 s; ` +
        `${hub.contacts.size} contacts, none written twice: ${[...hub.contacts.values()].every((c) => c.writes === 1)}`,
    );
    console.log(
      `worker RSS: median ${median(early).toFixed(0)} MB early, ${median(late).toFixed(0)} MB late (${growth >= 0 ? '+' : ''}${growth.toFixed(0)} MB)`,
    );
    const met = ratio >= 0.9 && hub.rateLimited === 0 && hub.maxInWindow() <= BUDGET && growth < 50;
    console.log(
      `target: >= 0.9 of the budget, never over it, RSS flat (< 50 MB growth): ${met ? 'TARGET MET' : 'TARGET MISSED'}`,
    );
    const scenario = `CRM full resync: ${MEMBERS} members, HubSpot budget ${BUDGET} calls / 10 s`;
    record({
      scenario,
      figure: 'throughput (baseline: most the budget allows)',
      unit: 'records/s',
      value: rate,
      baseline: MOST_RECORDS_PER_SECOND,
      ratio,
      target: 'ratio >= 0.9',
      met: ratio >= 0.9,
    });
    record({
      scenario,
      figure: 'most calls in any 10 s',
      unit: 'calls',
      value: hub.maxInWindow(),
      target: `<= ${BUDGET}, no 429 (${hub.rateLimited} answered)`,
      met: hub.maxInWindow() <= BUDGET && hub.rateLimited === 0,
    });
    record({ scenario, figure: 'worker RSS growth', unit: 'MB', value: growth, target: '< 50 MB', met: growth < 50 });
    if (!met) process.exitCode = 1;
  } finally {
    await pool.end();
    await app.stop();
    await worker.stop();
  }
} finally {
  await hub.close();
  await db.drop();
}
