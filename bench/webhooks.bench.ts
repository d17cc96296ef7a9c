// Webhook delivery, against receivers on loopback, with the dispatcher in its own worker process.
// 1. Throughput: 2,000 deliveries due at once to a fast receiver; deliveries/s until all are recorded
//    as succeeded. Target >= 100/s.
// 2. Fairness: 10,000 deliveries queued for one organization (a quarter each to a refused port, a
//    black hole that never answers, and two live receivers), then one delivery for another
//    organization: time until its receiver has it. Target <= 5 s.
// Each measured in BENCH_ROUNDS rounds (default 3), reported as min / median / max.
import http from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { WebhookSecrets } from '../src/modules/webhooks/webhook.secrets.ts';
import { newWebhookSecret } from '../src/modules/webhooks/webhook.signer.ts';
import { deriveKey } from '../src/shared/crypto.ts';
import { createBenchDatabase } from './lib/database.ts';
import { spawnServer } from './lib/server.ts';
import { record } from './lib/results.ts';

const APP_SECRET = 'bench-secret-bench-secret-bench-secret-00';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const THROUGHPUT_DELIVERIES = Number(process.env.BENCH_WEBHOOK_DELIVERIES ?? 2000);
const BACKLOG = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0]!, median: sorted[Math.floor(sorted.length / 2)]!, max: sorted[sorted.length - 1]! };
};

/** A fast receiver: counts deliveries, answers 204. */
async function receiver(): Promise<{ url: string; count: () => number; close(): Promise<void> }> {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    count: () => received,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Accepts connections and never answers: every attempt runs into the timeout. */
async function blackHole(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/hooks`;
}

const db = await createBenchDatabase();
const secrets = new WebhookSecrets(deriveKey(APP_SECRET, 'webhook-secrets'));
const q = (text: string, values: unknown[] = []) => db.pool.query(text, values);

async function organization(name: string): Promise<string> {
  const id = randomUUID();
  await q(`INSERT INTO organizations (id, name, slug, plan) VALUES ($1, $2, $3, 'enterprise')`, [
    id,
    name,
    `${name}-${id.slice(0, 8)}`,
  ]);
  return id;
}
async function subscription(organizationId: string, url: string): Promise<string> {
  const { rows } = await q(
    `INSERT INTO webhook_subscriptions (organization_id, url, event_types, secret_sealed) VALUES ($1, $2, '{member.created}', $3) RETURNING id`,
    [organizationId, url, secrets.seal(newWebhookSecret())],
  );
  return rows[0].id;
}
/** `count` events and deliveries, due now, spread over the subscriptions in turn. */
async function enqueue(organizationId: string, subscriptionIds: string[], count: number): Promise<void> {
  await q(
    `WITH events AS (
       INSERT INTO webhook_events (id, organization_id, type, body, occurred_at)
       SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), $1, 'member.created',
              json_build_object('type', 'member.created', 'timestamp', now(), 'data', json_build_object('n', g, 'email', 'member' || g || '@example.test'))::text, now()
         FROM generate_series(1, $3::int) g RETURNING id)
     INSERT INTO webhook_deliveries (organization_id, subscription_id, event_id, next_attempt_at)
     SELECT $1, ($2::uuid[])[1 + (row_number() OVER () % cardinality($2::uuid[]))], id, now() FROM events`,
    [organizationId, subscriptionIds, count],
  );
}
const succeeded = async (organizationId: string) =>
  (
    await q(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE organization_id = $1 AND status = 'succeeded'`, [
      organizationId,
    ])
  ).rows[0].n as number;

const fast = await receiver();
const quietReceiver = await receiver();
const live2 = await receiver();
const hole = await blackHole();
const worker = await spawnServer('jobs.worker.ts', {
  DATABASE_URL: db.url,
  APP_SECRET,
  NODE_ENV: 'development',
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
  JOBS_POLLING_SECONDS: '2',
});
let failed = false;
try {
  // 1. Throughput
  const throughput: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const org = await organization(`throughput${round}`);
    const sub = await subscription(org, fast.url);
    const before = fast.count();
    const started = performance.now();
    await enqueue(org, [sub], THROUGHPUT_DELIVERIES);
    while ((await succeeded(org)) < THROUGHPUT_DELIVERIES) await sleep(20);
    const seconds = (performance.now() - started) / 1000;
    const rate = THROUGHPUT_DELIVERIES / seconds;
    throughput.push(rate);
    console.log(
      `round ${round}: ${THROUGHPUT_DELIVERIES} deliveries in ${seconds.toFixed(2)} s = ${rate.toFixed(0)} deliveries/s (receiver got ${fast.count() - before})`,
    );
  }

  // 2. Fairness under a backlog with dead endpoints
  const latencies: number[] = [];
  const busy = await organization('busy');
  const busySubs = [
    await subscription(busy, await refusedUrl()),
    await subscription(busy, hole.url),
    await subscription(busy, fast.url),
    await subscription(busy, live2.url),
  ];
  const quiet = await organization('quiet');
  const quietSub = await subscription(quiet, quietReceiver.url);
  for (let round = 1; round <= ROUNDS; round++) {
    await q(`DELETE FROM webhook_deliveries WHERE organization_id = $1`, [busy]);
    await q(
      `UPDATE webhook_subscriptions SET consecutive_failures = 0, circuit_open_until = NULL WHERE organization_id = $1`,
      [busy],
    );
    await enqueue(busy, busySubs, BACKLOG);
    await sleep(1500); // the dispatcher is busy with the backlog
    const before = quietReceiver.count();
    const started = performance.now();
    await enqueue(quiet, [quietSub], 1);
    while (quietReceiver.count() === before) await sleep(5);
    const seconds = (performance.now() - started) / 1000;
    latencies.push(seconds);
    const pending = (
      await q(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE organization_id = $1 AND status = 'pending'`, [
        busy,
      ])
    ).rows[0].n;
    console.log(
      `round ${round}: the other organization's delivery arrived after ${seconds.toFixed(3)} s (${pending} of the ${BACKLOG.toLocaleString('en')} backlog still pending)`,
    );
  }

  const t = stats(throughput);
  const l = stats(latencies);
  const throughputMet = t.median >= 100;
  const latencyMet = l.max <= 5;
  console.log('\n## Webhook delivery (dispatcher in a worker process, receivers on loopback)');
  console.log('| | min | median | max | target |');
  console.log('|---|---:|---:|---:|---|');
  console.log(
    `| deliveries/s (${THROUGHPUT_DELIVERIES.toLocaleString('en')} to a fast receiver) | ${t.min.toFixed(0)} | ${t.median.toFixed(0)} | ${t.max.toFixed(0)} | >= 100 ${throughputMet ? 'MET' : 'MISSED'} |`,
  );
  console.log(
    `| other organization's latency, s (${BACKLOG.toLocaleString('en')} queued for one, half to dead endpoints) | ${l.min.toFixed(3)} | ${l.median.toFixed(3)} | ${l.max.toFixed(3)} | <= 5 ${latencyMet ? 'MET' : 'MISSED'} |`,
  );
  const scenario = 'Webhook delivery (dispatcher in a worker process, receivers on loopback)';
  record({
    scenario,
    figure: `deliveries/s, median of ${ROUNDS} (${THROUGHPUT_DELIVERIES} to a fast receiver)`,
    unit: 'deliveries/s',
    value: t.median,
    target: '>= 100',
    met: throughputMet,
  });
  record({
    scenario,
    figure: `other organization's latency, max of ${ROUNDS} (${BACKLOG} queued for one)`,
    unit: 's',
    value: l.max,
    target: '<= 5 s',
    met: latencyMet,
  });
  failed = !throughputMet || !latencyMet;
} finally {
  await worker.stop();
  await fast.close();
  await quietReceiver.close();
  await live2.close();
  await hole.close();
  await db.drop();
}
if (failed) process.exitCode = 1;
