// GET /api/resources?q=... over 10,000 resources and 200,000 passages of extracted text (PostgreSQL
// server, keyword path: no pgvector needed), as an active member: full-text over names, tags,
// descriptions and the documents' text with the last word as a prefix, trigram typo tolerance over a
// lexicon that holds the text's words, the access policy inside the SQL, a page of 25 with its total
// and each item's matching pages with ts_headline snippets. Sequential requests (latency, not
// throughput), p50/p95, against a plain SQL baseline measured in the same run: the same statements
// (lexicon lookup, search, page read, content matches) run directly through one pg client.
// Target: app p95 < 100 ms and within 3x of plain SQL.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Actor } from '../src/shared/access/actor.ts';
import { hashPassword, randomToken } from '../src/shared/crypto.ts';
import { libraryReader } from '../src/modules/library/resource.access.ts';
import { parseCatalogQuery } from '../src/modules/resource-catalog/catalog.filters.ts';
import {
  alternativesSql,
  contentMatchesSql,
  keywordTsQuery,
  searchSql,
  textTsQuery,
  type WordAlternatives,
} from '../src/modules/resource-catalog/catalog-search.repository.ts';
import { createBenchDatabase, type BenchDatabase } from './lib/database.ts';
import { spawnServer } from './lib/server.ts';
import { record } from './lib/results.ts';

const APP_SECRET = 'bench-secret-bench-secret-bench-secret-00';
const RESOURCES = 10_000;
const PAGES = 20; // passages per resource: 200,000 in all
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
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

/**
 * The documents' vocabulary: 3,000 made-up words (three syllables, so the English stemmer leaves them
 * whole and no two collide), drawn with a Zipf-like law (below), and the catalogue's 40 words placed at
 * mid-frequency ranks so names and texts share words as real libraries do.
 */
const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ner',
  'pu',
  'ra',
  'sen',
  'ti',
  'vo',
  'dan',
  'fe',
  'gor',
  'hu',
  'jal',
  'bre',
  'cor',
];
const VOCABULARY = (() => {
  const words: string[] = [];
  for (let i = 0; words.length < 3000; i++) {
    const n = i * 7919; // a stride coprime with 16^3 walks every combination once, in a scattered order
    words.push(`${SYLLABLES[n % 16]}${SYLLABLES[Math.floor(n / 16) % 16]}${SYLLABLES[Math.floor(n / 256) % 16]}x`);
  }
  for (const [index, known] of WORDS.entries()) words.splice(200 + index * 20, 0, known);
  return words;
})();
/**
 * Word ranks follow p(k) ~ 1 / (k + ZIPF_OFFSET): the most frequent word is ~0.5% of the text (as the
 * most frequent content word of real prose once stop words are gone), so it appears in about a third
 * of the passages; rank 100 in ~12%, rank 1,000 in ~2%, rank 3,000 in ~0.6%.
 */
const ZIPF_OFFSET = 50;
const word = (rank: number) => VOCABULARY[rank]!;
/** Content searches as members type them: rare and common words, two words, a prefix, typos, names. */
const QUERIES = [
  word(1500), // ~0.9% of passages
  word(700), // ~3%
  `${word(400)} ${word(900)}`, // two words on one page
  word(1200).slice(0, 5), // a prefix
  `${word(800).slice(0, 3)}${word(800).slice(4)}`, // a typo of a text word (a letter dropped)
  word(30), // a common word: ~20% of passages
  'annual report', // names and texts
  'anual', // a typo of a name word
  'handbok',
  'member onboarding guide',
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
  console.log(`seeded ${RESOURCES.toLocaleString('en')} resources in ${Math.round(performance.now() - started)} ms`);
  // PAGES passages per resource, 60 to 99 words each, as ingestion writes them (one INSERT per batch, so
  // the lexicon trigger takes the text's words as it does for a document)
  const passagesStarted = performance.now();
  const BATCH = 1000;
  for (let offset = 0; offset < RESOURCES; offset += BATCH) {
    await db.pool.query(
      `INSERT INTO resource_passages (organization_id, resource_id, version_id, ordinal, page_number, location_kind, content)
       SELECT r.organization_id, r.id, v.id, g - 1, g, 'page',
              (SELECT string_agg(w[1 + least($4 - 1, floor(exp(random() * ln(($4 + $5)::float8 / $5)) * $5 - $5)::int)], ' ' ORDER BY t.i)
                 FROM generate_series(1, 60 + (g * 7 + get_byte(decode(md5(r.id::text), 'hex'), 0)) % 40) t(i))
         FROM (SELECT id, organization_id FROM resources WHERE organization_id = $1 ORDER BY id LIMIT ${BATCH} OFFSET $2) r
         JOIN resource_versions v ON v.resource_id = r.id AND v.version = 1,
              generate_series(1, ${PAGES}) g, (SELECT $3::text[] AS w) words`,
      [organizationId, offset, VOCABULARY, VOCABULARY.length, ZIPF_OFFSET],
    );
  }
  await db.pool.query('VACUUM ANALYZE resources');
  await db.pool.query('VACUUM ANALYZE resource_versions');
  await db.pool.query('VACUUM ANALYZE resource_passages');
  await db.pool.query('VACUUM ANALYZE resource_search_terms');
  await db.pool.query('VACUUM ANALYZE resource_text_search');
  const counts = await db.pool.query<{ passages: number; terms: number }>(
    'SELECT (SELECT count(*) FROM resource_passages)::int AS passages, (SELECT count(*) FROM resource_search_terms)::int AS terms',
  );
  console.log(
    `seeded ${counts.rows[0]!.passages.toLocaleString('en')} passages (lexicon: ${counts.rows[0]!.terms.toLocaleString('en')} words) in ${Math.round(performance.now() - passagesStarted)} ms`,
  );
  return {
    organizationId,
    email,
    password,
    member: { id: member.rows[0]!.id, tier: 'member' },
    userId: user.rows[0]!.id,
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN; // NaN: no rounds
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
      const keyword = { tsQuery: keywordTsQuery(words.rows), textQuery: textTsQuery(words.rows) };
      return { keyword, statement: searchSql(reader, query, { limit: 25, offset: 0 }, keyword) };
    };
    const viaApp = async (q: string) => {
      const started = performance.now();
      const res = await fetch(`${app.url}/api/resources?q=${encodeURIComponent(q)}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      const body = (await res.json()) as {
        data: Array<{ matches: { pages: unknown[] } }>;
        pagination: { totalItems: number };
      };
      if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(body)}`);
      const pages = body.data.reduce((sum, item) => sum + item.matches.pages.length, 0);
      return { ms: performance.now() - started, total: body.pagination.totalItems, pages };
    };
    const viaSql = async (q: string) => {
      const started = performance.now();
      const { keyword, statement } = await searchStatement(q);
      const page = await client.query<{ id: string; total: number }>(statement.text, statement.values);
      const ids = page.rows.map((row) => row.id);
      await client.query(
        `SELECT r.*, v.file_name, v.size_bytes FROM resources r JOIN resource_versions v ON v.resource_id = r.id AND v.version = r.current_version WHERE r.id = ANY($1::uuid[])`,
        [ids],
      );
      const matches = contentMatchesSql(reader, ids, keyword);
      const pages = await client.query(matches.text, matches.values);
      return { ms: performance.now() - started, total: page.rows[0]?.total ?? 0, pages: pages.rowCount ?? 0 };
    };

    for (const q of QUERIES) {
      const [a, b] = [await viaApp(q), await viaSql(q)];
      if (a.total !== b.total || a.pages !== b.pages)
        throw new Error(`"${q}": the app counts ${a.total} (${a.pages} pages), plain SQL ${b.total} (${b.pages})`);
      const { keyword } = await searchStatement(q);
      const passages = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM resource_passages WHERE search @@ to_tsquery('english', $1)`,
        [keyword.textQuery.replaceAll(' & ', ' | ')],
      );
      console.log(
        `"${q}" (${keyword.tsQuery}; text ${keyword.textQuery}): ${a.total} resources, ${passages.rows[0]!.n.toLocaleString('en')} passages with a word of it, ${a.pages} pages shown`,
      );
      // BENCH_EXPLAIN=1 prints the plan of each search statement
      if (process.env.BENCH_EXPLAIN) {
        const { statement, keyword } = await searchStatement(q);
        const plan = await client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`,
          statement.values,
        );
        console.log(plan.rows.map((row) => row['QUERY PLAN']).join('\n'));
        const page = await client.query<{ id: string }>(statement.text, statement.values);
        const matches = contentMatchesSql(
          reader,
          page.rows.map((row) => row.id),
          keyword,
        );
        const matchesPlan = await client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN (ANALYZE, BUFFERS) ${matches.text}`,
          matches.values,
        );
        console.log(matchesPlan.rows.map((row) => row['QUERY PLAN']).join('\n'));
      }
    }
    const appSamples: number[] = [];
    const sqlSamples: number[] = [];
    const perQuery = new Map<string, { app: number[]; sql: number[] }>(QUERIES.map((q) => [q, { app: [], sql: [] }]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const q of QUERIES) {
        const [a, b] = [(await viaApp(q)).ms, (await viaSql(q)).ms];
        appSamples.push(a);
        sqlSamples.push(b);
        perQuery.get(q)!.app.push(a);
        perQuery.get(q)!.sql.push(b);
      }
    }
    await client.end();
    const appStats = summary(appSamples);
    const sqlStats = summary(sqlSamples);
    const fmt = (n: number) => n.toFixed(1);
    const ratio = appStats.p95 / Math.max(sqlStats.p95, 0.1);
    console.log(
      `\n## GET /api/resources?q=... (${RESOURCES.toLocaleString('en')} resources, ${(RESOURCES * PAGES).toLocaleString('en')} passages, active member, page of 25 + total + matching pages with snippets), ${appSamples.length} sequential requests`,
    );
    console.log('| query | app p50 ms | app p95 ms | SQL p50 ms | SQL p95 ms | p95 ratio |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const [q, samples] of perQuery) {
      const a = summary(samples.app);
      const b = summary(samples.sql);
      console.log(
        `| ${q} | ${fmt(a.p50)} | ${fmt(a.p95)} | ${fmt(b.p50)} | ${fmt(b.p95)} | ${(a.p95 / Math.max(b.p95, 0.1)).toFixed(2)} |`,
      );
    }
    console.log(
      `| **all: Guildhall (HTTP, auth, policy, page read, matches) vs plain SQL (the same statements, one pg client)** | ${fmt(appStats.p50)} | **${fmt(appStats.p95)}** | ${fmt(sqlStats.p50)} | ${fmt(sqlStats.p95)} | **${ratio.toFixed(2)}** |`,
    );
    const met = appStats.p95 < 100 && ratio <= 3;
    console.log(
      `p95 ratio ${ratio.toFixed(2)} vs plain SQL (target <= 3); p95 ${fmt(appStats.p95)} ms (target < 100 ms): ${met ? 'TARGET MET' : 'TARGET MISSED'}`,
    );
    record({
      scenario: `GET /api/resources?q=... (${RESOURCES.toLocaleString('en')} resources), vs the same statements in plain SQL`,
      figure: `p95 of ${appSamples.length} sequential requests`,
      unit: 'ms',
      value: appStats.p95,
      baseline: sqlStats.p95,
      ratio,
      target: '< 100 ms and ratio <= 3',
      met,
    });
    if (!met) process.exitCode = 1;
  } finally {
    await app.stop();
  }
} finally {
  // BENCH_KEEP_DB=1 keeps the seeded database for EXPLAIN by hand (its URL is printed)
  if (process.env.BENCH_KEEP_DB) {
    console.log(`kept ${db.url}`);
    await db.pool.end();
  } else await db.drop();
}
