// Library reports over 1,000,000 usage events on the PostgreSQL server (its own database, dropped at
// the end). Each report, called through its service (access policy, SQL, mapping), vs a plain SQL
// aggregate over the same raw events and range, alternating, in the same run: p95 ratio <= 2.
// Data: one organization, 500 resources (downloads skewed to a few), 20 categories, 5,000 users and
// 3,000 anonymous visitors; ~700,000 visits over the last 365 days (today included), each a view, 30%
// followed by a download and 13% by a second view, so ~1,000,000 events. The rollup job runs once
// (its time is reported), so past days come from the rollup and today from the raw events.
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Actor } from '../src/shared/access/actor.ts';
import { openDatabase } from '../src/shared/database.ts';
import { createLogger } from '../src/shared/logger.ts';
import { systemClock } from '../src/shared/clock.ts';
import { Sql } from '../src/shared/sql.ts';
import { ResourceReportService } from '../src/modules/resource-reports/resource-report.service.ts';
import { UsageRollup } from '../src/modules/resource-reports/usage-rollup.repository.ts';
import { REPORT_WORK_MEM } from '../src/modules/resource-reports/report.repository.ts';
import { addDays, utcDay } from '../src/modules/resource-reports/report-range.ts';
import { createBenchDatabase } from './lib/database.ts';
import { record } from './lib/results.ts';

const VISITS = Number(process.env.BENCH_VISITS ?? 700_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 20);
const TARGET = 2;

const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1]!;
const ms = (n: number) => n.toFixed(1);

async function main(): Promise<void> {
  const bench = await createBenchDatabase();
  const logger = createLogger('warn');
  const db = await openDatabase({ databaseUrl: bench.url, dataDir: 'memory://', logger });
  try {
    const pool = bench.pool;
    const {
      rows: [org],
    } = await pool.query<{ id: string }>(
      `INSERT INTO organizations (name, slug) VALUES ('Bench association', 'bench-assoc') RETURNING id`,
    );
    const organizationId = org!.id;
    let started = performance.now();
    await pool.query(
      `INSERT INTO users (organization_id, first_name, last_name, email, role, status)
       SELECT $1, 'First' || g, 'Last' || g, 'reader' || g || '@example.test', 'ROLE_MEMBER', 'active' FROM generate_series(1, 5000) g`,
      [organizationId],
    );
    await pool.query(
      `INSERT INTO resources (organization_id, name, type, format, access_level, status, published_at)
       SELECT $1, 'Resource ' || g, 'document', 'pdf', 'members', 'published', now() FROM generate_series(1, 500) g`,
      [organizationId],
    );
    await pool.query(
      `INSERT INTO resource_categories (organization_id, name, position) SELECT $1, 'Category ' || g, g FROM generate_series(1, 20) g`,
      [organizationId],
    );
    await pool.query(
      `INSERT INTO resource_category_links (resource_id, category_id, organization_id)
       SELECT r.id, c.id, $1 FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM resources) r
         JOIN (SELECT id, row_number() OVER (ORDER BY id) AS n FROM resource_categories) c ON c.n = 1 + r.n % 20 OR (r.n % 3 = 0 AND c.n = 1 + (r.n / 3) % 20)`,
      [organizationId],
    );
    // visits: a skewed resource (power law), a reader (85% signed-in users), a time in the last 365 days
    await pool.query(
      `CREATE TEMP TABLE visits AS
       SELECT (SELECT array_agg(id ORDER BY id) FROM resources)[1 + floor(500 * power(random(), 2.5))::int] AS resource_id,
              CASE WHEN random() < 0.85 THEN (SELECT array_agg(id ORDER BY id) FROM users)[1 + floor(random() * 5000)::int] END AS user_id,
              'anonymous:v' || floor(random() * 3000)::int AS visitor_key,
              now() - random() * interval '365 days' AS at, random() AS roll
         FROM generate_series(1, $1::int)`,
      [VISITS],
    );
    await pool.query(
      `INSERT INTO resource_usage_events (organization_id, resource_id, user_id, visitor_key, kind, occurred_at)
       SELECT $1, resource_id, user_id, CASE WHEN user_id IS NULL THEN visitor_key END, kind, at + offset_by
         FROM visits, LATERAL (VALUES ('view', interval '0'), ('download', interval '1 minute'), ('view', interval '5 minutes')) AS e(kind, offset_by)
        WHERE (kind = 'view' AND offset_by = interval '0') OR (kind = 'download' AND roll < 0.30) OR (kind = 'view' AND offset_by > interval '0' AND roll > 0.87)
        ORDER BY 6`,
      [organizationId],
    );
    await pool.query(`ANALYZE`);
    const {
      rows: [{ count }],
    } = await pool.query<{ count: string }>(`SELECT count(*) FROM resource_usage_events`);
    console.log(`seeded ${Number(count).toLocaleString('en')} events in ${ms((performance.now() - started) / 1000)} s`);

    const sql = new Sql(db.sequelize);
    started = performance.now();
    const rollup = await new UsageRollup({ sequelize: db.sequelize, sql }).refresh(new Date());
    console.log(
      `rollup (first run, every past day): ${ms((performance.now() - started) / 1000)} s, ${rollup?.readerRows.toLocaleString('en')} reader-day rows, ${rollup?.dayRows.toLocaleString('en')} resource-day rows`,
    );
    started = performance.now();
    await new UsageRollup({ sequelize: db.sequelize, sql }).refresh(new Date());
    console.log(`rollup (a scheduled run, recent days): ${ms(performance.now() - started)} ms`);
    await pool.query(`ANALYZE`);

    const service = new ResourceReportService({ sql, sequelize: db.sequelize, clock: systemClock });
    const actor: Actor = {
      type: 'user',
      id: '00000000-0000-4000-8000-000000000001',
      organizationId,
      role: 'ROLE_CLIENT_ADMIN',
      mfaVerified: false,
    };
    const {
      rows: [top],
    } = await pool.query<{ resource_id: string }>(
      `SELECT resource_id FROM resource_usage_events GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
    );
    const today = utcDay(new Date());
    const page = { page: 1, itemsPerPage: 25 };
    const reader = `coalesce(user_id::text, visitor_key)`;
    // the plain aggregates get the same work_mem as the reports: the comparison is of the queries
    const plain = async (text: string, values: unknown[]) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`SET LOCAL work_mem = '${REPORT_WORK_MEM}'`);
        await client.query(text, values);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    };

    const ranges = [
      { label: '365 days', from: addDays(today, -364), to: today },
      { label: '30 days', from: addDays(today, -29), to: today },
    ];
    const results: Array<{ name: string; report: number; baseline: number; ratio: number }> = [];
    for (const range of ranges) {
      const where = `organization_id = $1 AND occurred_at >= $2::date::timestamp AT TIME ZONE 'UTC' AND occurred_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC'`;
      const args = [organizationId, range.from, range.to];
      const cases: Array<{ name: string; report: () => Promise<unknown>; baseline: () => Promise<unknown> }> = [
        {
          name: 'usage',
          report: () => service.report(actor, 'usage', range, page),
          baseline: () =>
            plain(
              `SELECT resource_id, count(*) FILTER (WHERE kind = 'view'), count(*) FILTER (WHERE kind = 'download'), count(DISTINCT ${reader}), max(occurred_at) FROM resource_usage_events WHERE ${where} GROUP BY resource_id`,
              args,
            ),
        },
        {
          name: 'categories',
          report: () => service.report(actor, 'categories', range, page),
          baseline: () =>
            plain(
              `SELECT l.category_id, count(*) FILTER (WHERE kind = 'view'), count(*) FILTER (WHERE kind = 'download'), count(DISTINCT ${reader}) FROM resource_usage_events e JOIN resource_category_links l ON l.resource_id = e.resource_id WHERE e.${where.replace(/ occurred_at/g, ' e.occurred_at')} GROUP BY l.category_id`,
              args,
            ),
        },
        {
          name: 'members',
          report: () => service.report(actor, 'members', range, page),
          baseline: () =>
            plain(
              `SELECT user_id, count(*) FILTER (WHERE kind = 'view'), count(*) FILTER (WHERE kind = 'download'), count(DISTINCT resource_id), max(occurred_at) FROM resource_usage_events WHERE ${where} AND user_id IS NOT NULL GROUP BY user_id`,
              args,
            ),
        },
        {
          name: 'trends (month)',
          report: () => service.report(actor, 'trends', { ...range, interval: 'month' }),
          baseline: () =>
            plain(
              `SELECT date_trunc('month', occurred_at AT TIME ZONE 'UTC'), count(*) FILTER (WHERE kind = 'view'), count(*) FILTER (WHERE kind = 'download'), count(DISTINCT ${reader}) FROM resource_usage_events WHERE ${where} GROUP BY 1`,
              args,
            ),
        },
        {
          name: 'trends (day)',
          report: () => service.report(actor, 'trends', { ...range, interval: 'day' }),
          baseline: () =>
            plain(
              `SELECT (occurred_at AT TIME ZONE 'UTC')::date, count(*) FILTER (WHERE kind = 'view'), count(*) FILTER (WHERE kind = 'download'), count(DISTINCT ${reader}) FROM resource_usage_events WHERE ${where} GROUP BY 1`,
              args,
            ),
        },
        {
          name: 'stats (top resource)',
          report: () => service.resourceStats(actor, top!.resource_id, range),
          baseline: () =>
            plain(
              `SELECT (occurred_at AT TIME ZONE 'UTC')::date, count(*) FILTER (WHERE kind = 'view'), count(*) FILTER (WHERE kind = 'download'), count(DISTINCT ${reader}) FROM resource_usage_events WHERE resource_id = $4 AND ${where} GROUP BY 1`,
              [...args, top!.resource_id],
            ),
        },
      ];
      for (const item of cases) {
        await item.report();
        await item.baseline();
        const reportTimes: number[] = [];
        const baselineTimes: number[] = [];
        for (let i = 0; i < ITERATIONS; i++) {
          let t0 = performance.now();
          await item.baseline();
          baselineTimes.push(performance.now() - t0);
          t0 = performance.now();
          await item.report();
          reportTimes.push(performance.now() - t0);
        }
        const report = p95(reportTimes);
        const baseline = p95(baselineTimes);
        results.push({ name: `${item.name}, ${range.label}`, report, baseline, ratio: report / baseline });
        console.log(
          `${item.name}, ${range.label}: report p95 ${ms(report)} ms, plain SQL p95 ${ms(baseline)} ms, ratio ${(report / baseline).toFixed(2)}`,
        );
      }
    }
    console.log(
      `\nload average (1 min) at the end: ${loadavg()[0]!.toFixed(1)} on ${(await import('node:os')).cpus().length} cores`,
    );
    console.log(
      `\n## Library reports over ${Number(count).toLocaleString('en')} events (p95 of ${ITERATIONS}, report through its service vs a plain SQL aggregate)`,
    );
    console.log('| report | report p95 ms | plain SQL p95 ms | ratio | target <= 2 |');
    console.log('|---|---:|---:|---:|---|');
    for (const r of results)
      console.log(
        `| ${r.name} | ${ms(r.report)} | ${ms(r.baseline)} | ${r.ratio.toFixed(2)} | ${r.ratio <= TARGET ? 'met' : 'MISSED'} |`,
      );
    for (const r of results)
      record({
        scenario: `Library report ${r.name} over ${Number(count).toLocaleString('en')} events, vs a plain SQL aggregate`,
        figure: `p95 of ${ITERATIONS}`,
        unit: 'ms',
        value: r.report,
        baseline: r.baseline,
        ratio: r.ratio,
        target: `ratio <= ${TARGET}`,
        met: r.ratio <= TARGET,
      });
    const missed = results.filter((r) => r.ratio > TARGET);
    console.log(
      missed.length ? `\nTARGET MISSED for ${missed.map((r) => r.name).join(', ')}` : '\nTARGET MET for every report',
    );
    process.exitCode = missed.length ? 1 : 0;
  } finally {
    await db.close();
    await bench.drop();
  }
}

await main();
