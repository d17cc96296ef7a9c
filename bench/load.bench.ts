// npm run bench -- load: a mixed workload against one app server process on the PostgreSQL server
// (loopback only), for BENCH_SECONDS (default 60) after a 5 s warm-up. One realistic tenant: 3,000
// members, 200 events, 40 library resources with their extracted passages (written as ingestion
// writes them, one INSERT per resource), an API key, and a SCIM directory (token) with 300 users
// provisioned through SCIM before the load. Eight autocannon instances run at once, one per route,
// 17 connections in all (the split is in routes() below), so p50 and p99 come out per route:
//   member lists with filters, member reads, POST and PUT of members (API key; a member is
//   updated by PUT, the API has no PATCH of a member), library search
//   (GET /api/resources?q=), chat in search mode (POST /api/resources/chat, no model configured),
//   SCIM PATCH of users (application/scim+json, the directory's token) and uploads (POST
//   /api/resources, multipart, a PDF of a few KB, published: stored on disk in a temporary DATA_DIR,
//   its ingestion and thumbnail jobs queued in pg-boss's schema, which the server makes at start as
//   src/main.ts does; JOBS_ENABLED=false, so no job runs).
// The server's RSS (/proc/<pid>/status VmRSS) is sampled every second. Whether RSS growth is a leak
// or the heap and allocator growing toward a steady state: the server runs with the V8 inspector on
// a loopback port, and every BENCH_GC_EVERY_SECONDS (30; 0: never) the bench forces a full GC
// through it and reads process.memoryUsage() (bench/lib/inspector.ts); the heap still used after a
// full GC is what a leak grows. Each forced GC pauses the server (tens of ms): p99 includes it.
// Targets: no errors and no non-2xx answer on any route; RSS flat: its growth over the second half of
// the run (least-squares slope times the half's duration) under 32 MB. Latencies and the heap after
// GC are reported with no target.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import PDFDocument from 'pdfkit';
import { randomToken, sha256 } from '../src/shared/crypto.ts';
import { createBenchDatabase, type BenchDatabase } from './lib/database.ts';
import { connectInspector, freePort, type Inspector } from './lib/inspector.ts';
import { seedMembers } from './lib/members.ts';
import { record } from './lib/results.ts';
import { spawnServer } from './lib/server.ts';

const APP_SECRET = 'bench-secret-bench-secret-bench-secret-00';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const WARM_UP_SECONDS = 5;
const MEMBERS = 3_000;
const EVENTS = 200;
const RESOURCES = 40;
const PASSAGES_PER_RESOURCE = 8;
const SCIM_USERS = 300;
const RSS_GROWTH_LIMIT_MB = 32;
const SCIM = 'application/scim+json';
const GC_EVERY_SECONDS = Number(process.env.BENCH_GC_EVERY_SECONDS ?? 30);
const BOUNDARY = 'guildhall-load-boundary';

const TOPICS = [
  ['annual conference', 'The annual conference takes place in Lyon in October; registration opens in June.'],
  ['membership fees', 'The individual membership fee is 120 euros a year; students pay 40 euros.'],
  ['board election', 'The board is elected for three years at the general assembly by secret ballot.'],
  ['mentoring programme', 'Every new member may ask for a mentor during the first year of membership.'],
  ['code of ethics', 'Members declare conflicts of interest to the ethics committee within thirty days.'],
  ['continuing education', 'Certified members complete forty hours of continuing education every two years.'],
  ['volunteer handbook', 'Volunteers sign the confidentiality agreement before their first committee meeting.'],
  ['salary survey', 'The salary survey reports a median salary of 54,000 euros for senior members.'],
] as const;
const FILLER = [
  'The association publishes this document for its members and partners.',
  'Questions about the procedure go to the secretariat by e-mail.',
  'The committee reviews the text every year and publishes the changes in the newsletter.',
  'Chapters may adapt the schedule to local circumstances after informing the board.',
];
const QUESTIONS = [
  'When is the annual conference?',
  'How much is the membership fee for students?',
  'How long is the board elected for?',
  'How many hours of continuing education are required?',
  'What is the median salary in the survey?',
  'Can a new member ask for a mentor?',
];
const SEARCHES = ['conference', 'membership fee', 'board election', 'ethic', 'volunter handbook', 'salary survey'];

interface World {
  apiKey: string;
  scimToken: string;
  memberIds: string[];
  /** The seeded members' fields a PUT must repeat (it replaces every writable field). */
  members: Array<{ id: string; firstName: string; lastName: string; email: string; membershipType: string }>;
  scimUserIds: string[];
  /** The PDF every upload sends (a few KB). */
  pdf: Buffer;
}

/** A one-page PDF with some text, as a member's document would be (pdfkit, a few KB). */
function smallPdf(): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument();
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    for (const [topic, fact] of TOPICS) doc.text(`${topic}: ${fact} ${FILLER.join(' ')}`);
    doc.end();
  });
}

/** multipart/form-data of POST /api/resources: a name, published, and the file. */
function uploadForm(i: number, pdf: Buffer): Buffer {
  const field = (name: string, value: string) =>
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  return Buffer.concat([
    Buffer.from(
      `${field('name', `Load upload ${i}`)}${field('status', 'published')}${field('accessLevel', 'members')}` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="load-${i}.pdf"\r\n` +
        'Content-Type: application/pdf\r\n\r\n',
    ),
    pdf,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

async function seed(db: BenchDatabase): Promise<{ world: Omit<World, 'scimUserIds' | 'pdf'>; organizationId: string }> {
  const { organizationId, apiKey } = await seedMembers(db, MEMBERS);
  await db.pool.query(
    `INSERT INTO events (organization_id, title, description, starts_at, ends_at, location, capacity, status)
     SELECT $1, 'Event ' || g, 'A chapter meeting', timestamptz '2026-01-01' + (g || ' days')::interval,
            timestamptz '2026-01-01' + (g || ' days')::interval + interval '2 hours', 'Chapter ' || (g % 40), 50 + g % 100,
            (ARRAY['draft', 'published', 'published', 'cancelled'])[1 + g % 4]
       FROM generate_series(1, $2::int) g`,
    [organizationId, EVENTS],
  );
  const started = performance.now();
  for (let r = 0; r < RESOURCES; r++) {
    const [topic, fact] = TOPICS[r % TOPICS.length]!;
    const { rows } = await db.pool.query<{ resource: string; version: string }>(
      `WITH resource AS (
         INSERT INTO resources (organization_id, name, description, type, format, access_level, status, published_at, tags)
         VALUES ($1, $2, $3, 'document', 'pdf', 'members', 'published', now(), $4) RETURNING id)
       INSERT INTO resource_versions (organization_id, resource_id, version, storage_key, file_name, content_type, format, size_bytes, sha256)
       SELECT $1, id, 1, 'orgs/' || $1 || '/resources/' || id || '/v1/file.pdf', 'file.pdf', 'application/pdf', 'pdf', 1000, repeat('a', 64)
         FROM resource RETURNING resource_id AS resource, id AS version`,
      [
        organizationId,
        `${topic[0]!.toUpperCase()}${topic.slice(1)} ${2018 + (r % 8)}`,
        `About the ${topic}.`,
        topic.split(' '),
      ],
    );
    const { resource, version } = rows[0]!;
    const contents = Array.from(
      { length: PASSAGES_PER_RESOURCE },
      (_, page) =>
        `${page === 0 ? fact : FILLER[page % FILLER.length]} ${FILLER[(page + r) % FILLER.length]} This page of the ${topic} document is page ${page + 1}.`,
    );
    await db.pool.query(
      `INSERT INTO resource_passages (organization_id, resource_id, version_id, ordinal, page_number, location_kind, content)
       SELECT $1, $2, $3, ordinal - 1, ordinal, 'page', content FROM unnest($4::text[]) WITH ORDINALITY AS x(content, ordinal)`,
      [organizationId, resource, version, contents],
    );
  }
  console.log(
    `seeded ${EVENTS} events and ${RESOURCES} resources (${RESOURCES * PASSAGES_PER_RESOURCE} passages) in ${Math.round(performance.now() - started)} ms`,
  );
  const scimToken = `scim_${randomToken(32)}`;
  await db.pool.query(
    `INSERT INTO directories (id, organization_id, name, provider, token_hash, token_prefix, group_roles, send_welcome)
     VALUES ($1, $2, 'Entra ID', 'scim', $3, $4, '[]', false)`,
    [randomUUID(), organizationId, sha256(scimToken), scimToken.slice(0, 12)],
  );
  await db.pool.query('VACUUM ANALYZE');
  const { rows } = await db.pool.query<World['members'][number]>(
    `SELECT id, first_name AS "firstName", last_name AS "lastName", email, membership_type AS "membershipType"
       FROM members WHERE organization_id = $1 ORDER BY id`,
    [organizationId],
  );
  return { world: { apiKey, scimToken, memberIds: rows.map((row) => row.id), members: rows }, organizationId };
}

async function provisionScimUsers(url: string, token: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < SCIM_USERS; i++) {
    const res = await fetch(`${url}/scim/v2/Users`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': SCIM },
      body: JSON.stringify({
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName: `person${i}@entra.load`,
        externalId: `ext-${i}`,
        name: { givenName: 'Person', familyName: `Number ${i}` },
        emails: [{ type: 'work', value: `person${i}@entra.load`, primary: true }],
        active: true,
      }),
    });
    if (res.status !== 201) throw new Error(`SCIM POST /Users: ${res.status} ${await res.text()}`);
    ids.push(((await res.json()) as { id: string }).id);
  }
  return ids;
}

interface Route {
  name: string;
  connections: number;
  /** Requests built so far, across the warm-up and the measured run (e-mails stay unique). */
  built: number;
  /** The next request: a path, and the method and body (JSON, or raw bytes) when not a GET. */
  next: (i: number) => { path: string; method?: string; body?: unknown; raw?: Buffer };
  headers: Record<string, string>;
}

function routes(world: World): Route[] {
  const api = { Authorization: `Bearer ${world.apiKey}`, 'Content-Type': 'application/json' };
  const read = { Authorization: `Bearer ${world.apiKey}` };
  const scim = { Authorization: `Bearer ${world.scimToken}`, 'Content-Type': SCIM };
  const multipart = {
    Authorization: `Bearer ${world.apiKey}`,
    'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
  };
  const lists = [
    '/api/members?status=active&order[lastName]=asc&page=5',
    '/api/members?lastName=ab&itemsPerPage=50',
    '/api/members?membershipType=Student&tier=premium&order[joinedAt]=desc',
    '/api/members?joinedAt[after]=2020-01-01&status=active&page=3',
    '/api/members?email=member1200@example.test',
  ];
  // PUTs and PATCHes walk the lists in order, so two connections never write the same row at once
  return [
    {
      name: 'GET /api/members (filters)',
      built: 0,
      connections: 4,
      headers: read,
      next: (i) => ({ path: lists[i % lists.length]! }),
    },
    {
      name: 'GET /api/members/{id}',
      built: 0,
      connections: 3,
      headers: read,
      next: (i) => ({ path: `/api/members/${world.memberIds[(i * 7919) % world.memberIds.length]}` }),
    },
    {
      name: 'POST /api/members',
      built: 0,
      connections: 2,
      headers: api,
      next: (i) => ({
        path: '/api/members',
        method: 'POST',
        body: {
          firstName: 'Load',
          lastName: `Writer ${i}`,
          email: `load-${i}@example.test`,
          membershipType: 'Individual',
          customFields: { chapter: `Chapter ${i % 40}` },
        },
      }),
    },
    {
      // members are updated by PUT (the API has no PATCH of a member): every writable field, changed ones included
      name: 'PUT /api/members/{id}',
      built: 0,
      connections: 2,
      headers: api,
      next: (i) => {
        const member = world.members[i % world.members.length]!;
        return {
          path: `/api/members/${member.id}`,
          method: 'PUT',
          body: {
            firstName: member.firstName,
            lastName: member.lastName,
            email: member.email,
            membershipType: member.membershipType,
            phone: `+1 555 ${String(i % 10_000).padStart(4, '0')}`,
            customFields: { chapter: `Chapter ${i % 40}` },
          },
        };
      },
    },
    {
      name: 'GET /api/resources?q=',
      built: 0,
      connections: 2,
      headers: read,
      next: (i) => ({ path: `/api/resources?q=${encodeURIComponent(SEARCHES[i % SEARCHES.length]!)}` }),
    },
    {
      name: 'POST /api/resources/chat (search mode)',
      built: 0,
      connections: 1,
      headers: api,
      next: (i) => ({ path: '/api/resources/chat', method: 'POST', body: { query: QUESTIONS[i % QUESTIONS.length] } }),
    },
    {
      name: 'PATCH /scim/v2/Users/{id}',
      built: 0,
      connections: 2,
      headers: scim,
      next: (i) => ({
        path: `/scim/v2/Users/${world.scimUserIds[i % world.scimUserIds.length]}`,
        method: 'PATCH',
        body: {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
          Operations: [{ op: 'Replace', path: 'name.givenName', value: `Renamed ${i}` }],
        },
      }),
    },
    {
      name: 'POST /api/resources (upload)',
      built: 0,
      connections: 1,
      headers: multipart,
      next: (i) => ({ path: '/api/resources', method: 'POST', raw: uploadForm(i, world.pdf) }),
    },
  ];
}

interface RouteResult {
  name: string;
  connections: number;
  requests: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  timeouts: number;
  statuses: Record<string, number>;
}

/** One autocannon instance per route, all at once, each counting its own requests. */
async function mixedLoad(baseUrl: string, all: Route[], seconds: number): Promise<RouteResult[]> {
  return Promise.all(
    all.map(async (route) => {
      const statuses: Record<string, number> = {};
      const result = await autocannon({
        url: baseUrl,
        connections: route.connections,
        duration: seconds,
        requests: [
          {
            setupRequest: (request) => {
              const next = route.next(route.built++);
              return {
                ...request,
                path: next.path,
                method: (next.method ?? 'GET') as 'GET',
                headers: route.headers,
                body: next.raw ?? (next.body === undefined ? undefined : JSON.stringify(next.body)),
              };
            },
            onResponse: (status) => {
              statuses[status] = (statuses[status] ?? 0) + 1;
            },
          },
        ],
      });
      return {
        name: route.name,
        connections: route.connections,
        requests: result.requests.total,
        p50: result.latency.p50,
        p99: result.latency.p99,
        errors: result.errors,
        non2xx: result.non2xx,
        timeouts: result.timeouts,
        statuses,
      };
    }),
  );
}

const rssMb = (pid: number) => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
};

/** Least-squares slope of samples taken once a second, in MB per second. */
function slope(samples: number[]): number {
  const n = samples.length;
  if (n < 2) return 0;
  const meanX = (n - 1) / 2;
  const meanY = samples.reduce((a, b) => a + b, 0) / n;
  let numerator = 0;
  let denominator = 0;
  samples.forEach((y, x) => {
    numerator += (x - meanX) * (y - meanY);
    denominator += (x - meanX) ** 2;
  });
  return numerator / denominator;
}

/** Least-squares growth over samples (x, y): the slope times the x range. */
function growthOver(points: Array<{ at: number; value: number }>): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const meanX = points.reduce((a, p) => a + p.at, 0) / n;
  const meanY = points.reduce((a, p) => a + p.value, 0) / n;
  let numerator = 0;
  let denominator = 0;
  for (const p of points) {
    numerator += (p.at - meanX) * (p.value - meanY);
    denominator += (p.at - meanX) ** 2;
  }
  return (numerator / denominator) * (points.at(-1)!.at - points[0]!.at);
}

const db = await createBenchDatabase();
const dataDir = mkdtempSync(path.join(tmpdir(), 'guildhall-load-'));
try {
  const { world: seeded } = await seed(db);
  const inspectPort = await freePort();
  process.env.BENCH_NODE_FLAGS = `${process.env.BENCH_NODE_FLAGS ?? ''} --inspect=127.0.0.1:${inspectPort}`;
  const app = await spawnServer('app.server.ts', {
    DATABASE_URL: db.url,
    APP_SECRET,
    DATA_DIR: dataDir,
    RATE_LIMIT_ENTERPRISE: '100000000',
    SCIM_RATE_LIMIT_PER_MINUTE: '100000000',
    JOBS_ENABLED: 'false',
  });
  let inspector: Inspector | undefined;
  try {
    const world: World = {
      ...seeded,
      scimUserIds: await provisionScimUsers(app.url, seeded.scimToken),
      pdf: await smallPdf(),
    };
    // no model configured (no ANTHROPIC_API_KEY or OPENAI_CHAT_URL in the environment): search mode
    const probe = await fetch(`${app.url}/api/resources/chat`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${world.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: QUESTIONS[0] }),
    });
    const answer = (await probe.json()) as { mode?: string; sources?: unknown[] };
    if (probe.status !== 200 || answer.mode !== 'search')
      throw new Error(`chat should answer in search mode: ${probe.status} ${JSON.stringify(answer)}`);
    console.log(`chat probe: mode ${answer.mode}, ${answer.sources?.length ?? 0} sources`);
    const uploadProbe = await fetch(`${app.url}/api/resources`, {
      method: 'POST',
      headers: routes(world).at(-1)!.headers,
      body: new Uint8Array(uploadForm(-1, world.pdf)),
    });
    if (uploadProbe.status !== 201)
      throw new Error(`the upload should be accepted: ${uploadProbe.status} ${await uploadProbe.text()}`);
    console.log(`upload probe: 201, a PDF of ${(world.pdf.length / 1024).toFixed(1)} KB`);
    inspector = await connectInspector(inspectPort);
    const all = routes(world);
    const connections = all.reduce((sum, route) => sum + route.connections, 0);
    const pid = app.child.pid!;
    const beforeWarmUp = rssMb(pid);
    const warm = await mixedLoad(app.url, all, WARM_UP_SECONDS);
    const started = performance.now();
    const elapsed = () => (performance.now() - started) / 1000;
    const gcSamples: Array<{ at: number; rss: number; heapUsed: number; heapTotal: number; external: number }> = [];
    const sampleAfterGc = async () => gcSamples.push({ at: elapsed(), ...(await inspector!.memoryAfterGc()) });
    await sampleAfterGc();
    const samples: number[] = [rssMb(pid)];
    const sampler = setInterval(() => samples.push(rssMb(pid)), 1000);
    const gcTimer = GC_EVERY_SECONDS > 0 ? setInterval(() => void sampleAfterGc(), GC_EVERY_SECONDS * 1000) : undefined;
    const cpuBefore = app.cpuSeconds();
    const results = await mixedLoad(app.url, all, SECONDS);
    clearInterval(sampler);
    clearInterval(gcTimer);
    samples.push(rssMb(pid));
    const cpuSeconds = app.cpuSeconds() - cpuBefore;
    await sampleAfterGc(); // once the load has stopped: what stays referenced
    const [load1, load5] = readFileSync('/proc/loadavg', 'utf8').split(' ');

    console.log(
      `\n## Mixed load: ${SECONDS} s at ${connections} connections (after a ${WARM_UP_SECONDS} s warm-up), one app process, PostgreSQL on loopback`,
    );
    console.log(
      `machine load average at the end: ${load1} (1 min), ${load5} (5 min); app server CPU ${cpuSeconds.toFixed(1)} s over ${SECONDS} s`,
    );
    console.log('| route | connections | requests | req/s | p50 ms | p99 ms | errors | non-2xx | statuses |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---|');
    for (const r of results)
      console.log(
        `| ${r.name} | ${r.connections} | ${r.requests} | ${(r.requests / SECONDS).toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} | ${JSON.stringify(r.statuses)} |`,
      );
    const total = results.reduce((sum, r) => sum + r.requests, 0);
    const failures = [...warm, ...results].reduce((sum, r) => sum + r.errors + r.non2xx + r.timeouts, 0);
    const secondHalf = samples.slice(Math.floor(samples.length / 2));
    const growth = slope(secondHalf) * (secondHalf.length - 1);
    const peak = Math.max(...samples);
    console.log(
      `RSS (MB): before warm-up ${beforeWarmUp.toFixed(0)}, start ${samples[0]!.toFixed(0)}, peak ${peak.toFixed(0)}, end ${samples.at(-1)!.toFixed(0)}; second half: slope ${(slope(secondHalf) * 60).toFixed(1)} MB/min, growth ${growth.toFixed(1)} MB over ${secondHalf.length - 1} s (target < ${RSS_GROWTH_LIMIT_MB} MB: ${growth < RSS_GROWTH_LIMIT_MB ? 'RSS flat' : 'RSS GROWING'})`,
    );
    console.log('| after a forced full GC at s | RSS MB | heap used MB | heap total MB | external MB |');
    console.log('|---:|---:|---:|---:|---:|');
    for (const g of gcSamples)
      console.log(
        `| ${g.at.toFixed(0)} | ${g.rss.toFixed(0)} | ${g.heapUsed.toFixed(1)} | ${g.heapTotal.toFixed(0)} | ${g.external.toFixed(1)} |`,
      );
    // the last sample is taken after the load stopped; the growth is over the samples under load
    const underLoad = gcSamples.slice(0, -1);
    const laterHalf = underLoad.filter((g) => g.at >= SECONDS / 2);
    // a growth needs samples taken under load (none with BENCH_GC_EVERY_SECONDS=0)
    const heapGrowth =
      laterHalf.length >= 2 ? growthOver(laterHalf.map((g) => ({ at: g.at, value: g.heapUsed }))) : undefined;
    const heapGrowthAll =
      underLoad.length >= 3 ? growthOver(underLoad.map((g) => ({ at: g.at, value: g.heapUsed }))) : undefined;
    const mb = (value: number | undefined) => (value === undefined ? 'n/a' : `${value.toFixed(1)} MB`);
    console.log(
      `heap used after a full GC: ${gcSamples[0]!.heapUsed.toFixed(1)} MB after the warm-up, ${gcSamples.at(-1)!.heapUsed.toFixed(1)} MB once the load stopped; least-squares growth under load ${mb(heapGrowthAll)} over the run, ${mb(heapGrowth)} over its second half`,
    );
    console.log(
      `errors, timeouts and non-2xx answers (warm-up included): ${failures} (target 0: ${failures === 0 ? 'TARGET MET' : 'TARGET MISSED'})`,
    );
    const scenario = `Mixed load, ${SECONDS} s at ${connections} connections, ${all.length} routes`;
    record({
      scenario,
      figure: 'errors + non-2xx',
      value: failures,
      target: '0',
      met: failures === 0,
    });
    record({
      scenario,
      figure: 'RSS growth, second half',
      unit: 'MB',
      value: growth,
      target: `< ${RSS_GROWTH_LIMIT_MB} MB`,
      met: growth < RSS_GROWTH_LIMIT_MB,
    });
    record({ scenario, figure: 'RSS peak', unit: 'MB', value: peak, target: '-', met: null });
    if (heapGrowth !== undefined)
      record({
        scenario,
        figure: 'heap used after full GC, growth over the second half',
        unit: 'MB',
        value: heapGrowth,
        target: '-',
        met: null,
      });
    record({
      scenario,
      figure: 'throughput, all routes',
      unit: 'req/s',
      value: total / SECONDS,
      target: '-',
      met: null,
    });
    for (const r of results) {
      record({ scenario: `${scenario}: ${r.name}`, figure: 'p50', unit: 'ms', value: r.p50, target: '-', met: null });
      record({ scenario: `${scenario}: ${r.name}`, figure: 'p99', unit: 'ms', value: r.p99, target: '-', met: null });
    }
    if (failures !== 0 || !(growth < RSS_GROWTH_LIMIT_MB)) process.exitCode = 1;
  } finally {
    inspector?.close();
    await app.stop();
  }
} finally {
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
