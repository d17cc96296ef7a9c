// GET /api/resources?q=... over 10,000 resources (PostgreSQL server), as an active member: full-text
// with the last word as a prefix, trigram typo tolerance, the access policy inside the SQL, a page of
// 25 with its total. Sequential requests (latency, not throughput), p50/p95, against a plain SQL
// baseline: the same search statement and a page read run directly through pg, in the same run.
// Target: app p95 < 50 ms.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Actor } from '../src/shared/access/actor.ts';
import { hashPassword, randomToken } from '../src/shared/crypto.ts';
import { libraryReader } from '../src/modules/library/resource.access.ts';
import { parseCatalogQuery } from '../src/modules/resource-catalog/catalog.filters.ts';
import {
  alternativesSql,
  keywordTsQuery,
  searchSql,
  type WordAlternatives,
} from '../src/modules/resource-catalog/catalog-search.repository.ts';
import { createBenchDatabase, type BenchDatabase } from './lib/database.ts';
import { spawnServer } from './lib/server.ts';

const APP_SECRET = 'bench-secret-bench-secret-bench-secret-00';
const RESOURCES = 10_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const QUERIES = [
  'annual report',
  'govern',
  'strategy plan',
  'anual',
  'keynot',
  'budget workshop',
  'handbok',
  'member onboarding guide',
];
const WORDS = [
  'annual',
  'report',
  'governance',
  'bylaws',
  'strategy',
  'plan',
  'keynote',
  'recording',
  'budget',
  'workshop',
  'handbook',
  'member',
  'onboarding',
  'guide',
  'policy',
  'minutes',
  'board',
  'meeting',
  'congress',
  'webinar',
  'training',
  'certification',
  'salary',
  'survey',
  'newsletter',
  'checklist',
  'template',
  'toolkit',
  'research',
  'study',
  'ethics',
  'compliance',
  'finance',
  'marketing',
  'volunteer',
  'mentoring',
  'leadership',
  'conference',
  'presentation',
  'summary',
];

async function seed(db: BenchDatabase): Promise<{
  organizationId: string;
  email: string;
  password: string;
  member: { id: string; tier: 'member' };
  userId: string;
}> {
  const organizationId = randomUUID();
  const password = `bench-${randomToken(8)}`;
  const email = `bench-member-${randomToken(4).toLowerCase()}@example.test`;
  await db.pool.query(
    `INSERT INTO organizations (id, name, slug, plan) VALUES ($1, 'Bench', 'bench-library', 'enterprise')`,
    [organizationId],
  );
  const user = await db.pool.query<{ id: string }>(
    `INSERT INTO users (organization_id, role, first_name, last_name, email, status, password_hash) VALUES ($1, 'ROLE_MEMBER', 'Bench', 'Member', $2, 'active', $3) RETURNING id`,
    [organizationId, email, await hashPassword(password)],
  );
  const member = await db.pool.query<{ id: string }>(
    `INSERT INTO members (organization_id, first_name, last_name, email, tier, status, user_id) VALUES ($1, 'Bench', 'Member', $2, 'member', 'active', $3) RETURNING id`,
    [organizationId, email, user.rows[0]!.id],
  );
  const started = performance.now();
  await db.pool.query(
    `INSERT INTO resources (organization_id, name, description, type, format, access_level, price_amount, price_currency, status, published_at, tags, download_count)
     SELECT $1,
            initcap(w[1 + get_byte(h, 0) % 40]) || ' ' || w[1 + get_byte(h, 1) % 40] || ' ' || w[1 + get_byte(h, 2) % 40] || ' ' || (2015 + g % 11),
            'A ' || w[1 + get_byte(h, 3) % 40] || ' ' || w[1 + get_byte(h, 4) % 40] || ' for the ' || w[1 + get_byte(h, 5) % 40] || ' ' || w[1 + get_byte(h, 6) % 40] || ' of our association, with ' || w[1 + get_byte(h, 7) % 40] || ' and ' || w[1 + get_byte(h, 8) % 40] || '.',
            'document', 'pdf',
            (ARRAY['public', 'preview', 'members', 'members', 'premium', 'paid'])[1 + g % 6],
            CASE WHEN g % 6 = 5 THEN 10 END, CASE WHEN g % 6 = 5 THEN 'EUR' END,
            CASE WHEN g % 20 = 0 THEN 'draft' ELSE 'published' END,
            CASE WHEN g % 20 = 0 THEN NULL ELSE timestamptz '2024-01-01' + (g || ' hours')::interval END,
            ARRAY[w[1 + get_byte(h, 9) % 40], w[1 + get_byte(h, 10) % 40]],
            g % 97
       FROM generate_series(1, $2::int) g, LATERAL (SELECT decode(md5(g::text), 'hex') AS h) hashed, (SELECT $3::text[] AS w) words`,
    [organizationId, RESOURCES, WORDS],
  );
  await db.pool.query(
    `INSERT INTO resource_versions (organization_id, resource_id, version, storage_key, file_name, content_type, format, size_bytes, sha256)
     SELECT organization_id, id, 1, 'orgs/' || organization_id || '/resources/' || id || '/v1/file.pdf', 'file.pdf', 'application/pdf', 'pdf', 1000, repeat('a', 64)
       FROM resources WHERE organization_id = $1`,
    [organizationId],
  );
  await db.pool.query('VACUUM ANALYZE resources');
  await db.pool.query('VACUUM ANALYZE resource_versions');
  console.log(`seeded ${RESOURCES.toLocaleString('en')} resources in ${Math.round(performance.now() - started)} ms`);
  return {
    organizationId,
    email,
    password,
    member: { id: member.rows[0]!.id, tier: 'member' },
    userId: user.rows[0]!.id,
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
};

const db = await createBenchDatabase();
try {
  const world = await seed(db);
  const app = await spawnServer('app.server.ts', {
    DATABASE_URL: db.url,
    APP_SECRET,
    RATE_LIMIT_ENTERPRISE: '100000000',
    JOBS_ENABLED: 'false',
    SMTP_URL: 'smtp://127.0.0.1:2525',
  });
  try {
    const login = await fetch(`${app.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: world.email, password: world.password }),
    });
    const token = ((await login.json()) as { accessToken: string }).accessToken;
    const actor: Actor = {
      type: 'user',
      id: world.userId,
      organizationId: world.organizationId,
      role: 'ROLE_MEMBER',
      mfaVerified: false,
    };
    const reader = libraryReader(actor, world.member);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();

    /** The lexicon lookup, then the search statement, as the service builds them. */
    const searchStatement = async (q: string) => {
      const query = parseCatalogQuery({ q });
      const lookup = alternativesSql(world.organizationId, query.words);
      const words = await client.query<WordAlternatives>(lookup.text, lookup.values);
      return searchSql(reader, query, { limit: 25, offset: 0 }, keywordTsQuery(words.rows));
    };
    const viaApp = async (q: string) => {
      const started = performance.now();
      const res = await fetch(`${app.url}/api/resources?q=${encodeURIComponent(q)}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      const body = (await res.json()) as { data: unknown[]; pagination: { totalItems: number } };
      if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(body)}`);
      return { ms: performance.now() - started, total: body.pagination.totalItems };
    };
    const viaSql = async (q: string) => {
      const started = performance.now();
      const statement = await searchStatement(q);
      const page = await client.query<{ id: string; total: number }>(statement.text, statement.values);
      await client.query(
        `SELECT r.*, v.file_name, v.size_bytes FROM resources r JOIN resource_versions v ON v.resource_id = r.id AND v.version = r.current_version WHERE r.id = ANY($1::uuid[])`,
        [page.rows.map((row) => row.id)],
      );
      return { ms: performance.now() - started, total: page.rows[0]?.total ?? 0 };
    };

    for (const q of QUERIES) {
      const [a, b] = [await viaApp(q), await viaSql(q)];
      if (a.total !== b.total) throw new Error(`"${q}": the app counts ${a.total}, plain SQL ${b.total}`);
      console.log(`"${q}": ${a.total} matches`);
      // BENCH_EXPLAIN=1 prints the plan of each search statement
      if (process.env.BENCH_EXPLAIN) {
        const statement = await searchStatement(q);
        console.log(statement.values.find((value) => typeof value === 'string' && /[&|:]/.test(value)));
        const plan = await client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`,
          statement.values,
        );
        console.log(plan.rows.map((row) => row['QUERY PLAN']).join('\n'));
      }
    }
    const appSamples: number[] = [];
    const sqlSamples: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const q of QUERIES) {
        appSamples.push((await viaApp(q)).ms);
        sqlSamples.push((await viaSql(q)).ms);
      }
    }
    await client.end();
    const appStats = summary(appSamples);
    const sqlStats = summary(sqlSamples);
    const fmt = (n: number) => n.toFixed(1);
    console.log(
      `\n## GET /api/resources?q=... (${RESOURCES.toLocaleString('en')} resources, active member, page of 25 + total), ${appSamples.length} sequential requests`,
    );
    console.log('| | p50 ms | p95 ms |');
    console.log('|---|---:|---:|');
    console.log(`| Guildhall (HTTP, auth, policy, page read) | ${fmt(appStats.p50)} | ${fmt(appStats.p95)} |`);
    console.log(
      `| plain SQL (same search statement + page read, one pg client) | ${fmt(sqlStats.p50)} | ${fmt(sqlStats.p95)} |`,
    );
    const met = appStats.p95 < 50;
    console.log(
      `p95 ratio ${(appStats.p95 / Math.max(sqlStats.p95, 0.1)).toFixed(2)} vs plain SQL; p95 ${fmt(appStats.p95)} ms (target < 50 ms): ${met ? 'TARGET MET' : 'TARGET MISSED'}`,
    );
    if (!met) process.exitCode = 1;
  } finally {
    await app.stop();
  }
} finally {
  await db.drop();
}
