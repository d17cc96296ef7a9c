// The delivery dispatcher on a real database: fairness across organizations, the per-endpoint circuit
// breaker (with a clock the test moves), no duplicate with two dispatchers, and a signing secret that
// cannot be unsealed. Throughput is measured by `npm run bench -- webhooks`, not asserted here.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { WebhookDeliveryRepository } from '../../src/modules/webhooks/webhook-delivery.repository.ts';
import { WebhookDeliverer } from '../../src/modules/webhooks/webhook.deliverer.ts';
import { WebhookDispatcher, type WebhookDispatcherOptions } from '../../src/modules/webhooks/webhook.dispatcher.ts';
import { WebhookSecrets } from '../../src/modules/webhooks/webhook.secrets.ts';
import { WebhookSender } from '../../src/modules/webhooks/webhook.sender.ts';
import { newWebhookSecret } from '../../src/modules/webhooks/webhook.signer.ts';
import { WebhookTargetGuard, systemDnsLookup } from '../../src/modules/webhooks/webhook.target-guard.ts';
import { ManualClock, systemClock, type Clock } from '../../src/shared/clock.ts';
import { deriveKey, randomToken } from '../../src/shared/crypto.ts';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { eventually, startReceiver, type Receiver } from '../factories/webhook-receiver.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

/** A loopback port nothing listens on: connections are refused at once (a dead endpoint). */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/gone`;
}

describe('webhook dispatcher', () => {
  let t: TestApp;
  let secrets: WebhookSecrets;
  const receivers: Receiver[] = [];
  const dispatchers: WebhookDispatcher[] = [];

  before(async () => {
    t = await startTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' } });
    secrets = new WebhookSecrets(deriveKey(t.config.appSecret!, 'webhook-secrets'));
  });
  after(async () => {
    for (const dispatcher of dispatchers) await dispatcher.stop();
    for (const receiver of receivers) await receiver.close();
    await t.close();
  });

  const sql = () => t.container.sql;
  const receiver = async (respond?: Parameters<typeof startReceiver>[0]) => {
    const started = await startReceiver(respond);
    receivers.push(started);
    return started;
  };

  function dispatcher(clock: Clock, options: Partial<WebhookDispatcherOptions> = {}): WebhookDispatcher {
    const guard = new WebhookTargetGuard({ allowPrivateTargets: true, lookup: systemDnsLookup });
    const built = new WebhookDispatcher({
      repository: new WebhookDeliveryRepository({ sequelize: t.db.sequelize, sql: sql() }),
      deliverer: new WebhookDeliverer({ guard, secrets, sender: new WebhookSender(16), timeoutMs: 2000 }),
      clock,
      logger: t.container.logger,
      options: {
        concurrency: 16,
        pollIntervalMs: 50,
        breakerThreshold: 3,
        breakerCooldownMs: 60_000,
        leaseMs: 30_000,
        retryDelaysSeconds: [3600, 3600],
        ...options,
      },
    });
    dispatchers.push(built);
    return built;
  }

  async function subscription(
    organizationId: string,
    url: string,
    secret = newWebhookSecret(),
  ): Promise<{ id: string; secret: string }> {
    const row = await sql().one<{ id: string }>(
      `INSERT INTO webhook_subscriptions (organization_id, url, event_types, secret_sealed) VALUES ($1, $2, '{member.created}', $3) RETURNING id`,
      [organizationId, url, secrets.seal(secret)],
    );
    return { id: row!.id, secret };
  }

  /** `count` events, each owed to the subscription and due at `dueAt`; returns the delivery ids in order. */
  async function deliveries(
    organizationId: string,
    subscriptionId: string,
    count: number,
    dueAt: Date,
  ): Promise<string[]> {
    const prefix = randomToken(6).replace(/[^a-z0-9]/gi, 'x');
    const rows = await sql().rows<{ id: string }>(
      `WITH events AS (
         INSERT INTO webhook_events (id, organization_id, type, body, occurred_at)
         SELECT 'msg_' || $4 || g, $1, 'member.created', json_build_object('type', 'member.created', 'data', json_build_object('n', g))::text, $3
           FROM generate_series(1, $5::int) g RETURNING id, occurred_at)
       INSERT INTO webhook_deliveries (organization_id, subscription_id, event_id, next_attempt_at)
       SELECT $1, $2, id, occurred_at FROM events ORDER BY id RETURNING id`,
      [organizationId, subscriptionId, dueAt, prefix, count],
    );
    return rows.map((r) => r.id);
  }

  const deliveryRows = (subscriptionId: string) =>
    sql().rows<{ id: string; status: string; attemptCount: number; lastError: string | null }>(
      `SELECT id, status, attempt_count AS "attemptCount", last_error AS "lastError" FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY next_attempt_at NULLS LAST, id`,
      [subscriptionId],
    );
  const breakerOf = async (subscriptionId: string) =>
    (await sql().one<{ failures: number; openUntil: Date | null }>(
      'SELECT consecutive_failures AS failures, circuit_open_until AS "openUntil" FROM webhook_subscriptions WHERE id = $1',
      [subscriptionId],
    ))!;

  it('when one organization has a large backlog (dead endpoints included), then another organization’s delivery is in the very first claim', async () => {
    const busy = await buildOrganization();
    const quiet = await buildOrganization();
    const hour = 3600_000;
    const now = new Date();
    const dead = await subscription(busy.id, await deadUrl());
    const live = await subscription(busy.id, (await receiver()).url);
    await deliveries(busy.id, dead.id, 600, new Date(now.getTime() - 2 * hour)); // older: first in line by age
    await deliveries(busy.id, live.id, 400, new Date(now.getTime() - hour));
    const quietReceiver = await receiver();
    const [quietDelivery] = await deliveries(quiet.id, (await subscription(quiet.id, quietReceiver.url)).id, 1, now);

    const repository = new WebhookDeliveryRepository({ sequelize: t.db.sequelize, sql: sql() });
    const claim = await repository.claim({
      now,
      leaseUntil: new Date(now.getTime() + 30_000),
      slots: 16,
      quotaLeft: () => 12,
      endpointQuotaLeft: () => 16,
      saturatedSubscriptions: [],
      breakerThreshold: 3,
    });
    assert.ok(
      claim.deliveries.some((d) => d.id === quietDelivery),
      'the quiet organization is served in the first claim',
    );
    assert.equal(
      claim.deliveries.filter((d) => d.organizationId === busy.id).length,
      8,
      'the busy one gets its share of the slots, not all of them',
    );
    assert.equal(claim.more, true);

    // The same through a dispatcher whose slots are taken by the backlog: the reserve is left for others.
    await repository.release(claim.deliveries.map((d) => d.id));
    const clock = new ManualClock(now);
    const running = dispatcher(clock, { concurrency: 8 });
    const first = await running.dispatchOnce();
    assert.equal(
      first.claimed,
      5,
      'the busy organization: its share (4 of 8), all to one endpoint (at most 4 may); the quiet one: 1',
    );
    await running.drain();
    const [delivered] = await quietReceiver.waitFor(1);
    assert.equal(JSON.parse(delivered!.body).type, 'member.created');
    await sql().query('DELETE FROM webhook_deliveries WHERE organization_id = ANY($1::uuid[])', [[busy.id, quiet.id]]);
  });

  it('when an endpoint fails again and again, then its circuit opens (deliveries wait, not fail) and a probe closes it after the cool-down', async () => {
    const organization = await buildOrganization();
    let up = false;
    const flaky = await receiver(() => (up ? 204 : 503));
    const { id } = await subscription(organization.id, flaky.url);
    const clock = new ManualClock(new Date());
    await deliveries(organization.id, id, 6, clock.now());
    const running = dispatcher(clock, { concurrency: 1, breakerThreshold: 3, breakerCooldownMs: 60_000 });

    for (let i = 0; i < 3; i++) {
      assert.equal((await running.dispatchOnce()).claimed, 1);
      await running.drain();
    }
    assert.equal(flaky.received.length, 3);
    const open = await breakerOf(id);
    assert.equal(open.failures, 3);
    assert.equal(open.openUntil?.getTime(), clock.now().getTime() + 60_000);
    assert.equal((await running.dispatchOnce()).claimed, 0, 'three deliveries are due, but the circuit is open');
    clock.advance(59_000);
    assert.equal((await running.dispatchOnce()).claimed, 0);
    assert.deepEqual(
      (await deliveryRows(id)).map((d) => d.status),
      Array(6).fill('pending'),
      'waiting, not failed',
    );

    // Cool-down over: half-open, one probe at a time even with room for more; it fails, the circuit opens again.
    clock.advance(2_000);
    const wide = dispatcher(clock, { concurrency: 8, breakerThreshold: 3, breakerCooldownMs: 60_000 });
    assert.equal((await wide.dispatchOnce()).claimed, 1);
    await wide.drain();
    assert.equal((await breakerOf(id)).failures, 4);
    assert.equal((await wide.dispatchOnce()).claimed, 0);

    // The endpoint is back: the next probe succeeds, the circuit closes and the rest go out.
    up = true;
    clock.advance(61_000);
    assert.equal((await wide.dispatchOnce()).claimed, 1);
    await wide.drain();
    assert.deepEqual(await breakerOf(id), { failures: 0, openUntil: null });
    assert.equal(
      (await wide.dispatchOnce()).claimed,
      1,
      'the one never attempted; the failed ones wait for their retry time',
    );
    await wide.drain();
    const rows = await deliveryRows(id);
    assert.equal(rows.filter((d) => d.status === 'succeeded').length, 2);
    assert.equal(rows.filter((d) => d.status === 'pending').length, 4);
    assert.ok(rows.every((d) => d.status !== 'failed'));
  });

  it('when two dispatchers share the database, then every delivery is sent exactly once', async () => {
    const target = await receiver();
    const organizations = [await buildOrganization(), await buildOrganization(), await buildOrganization()];
    const ids: string[] = [];
    for (const organization of organizations) {
      const { id } = await subscription(organization.id, target.url);
      ids.push(...(await deliveries(organization.id, id, 100, new Date())));
    }
    // leases far longer than any attempt, even on a loaded machine: a lease running out is a (correct) second attempt
    const one = dispatcher(systemClock, { concurrency: 16, leaseMs: 600_000 });
    const two = dispatcher(systemClock, { concurrency: 16, leaseMs: 600_000 });
    one.start();
    two.start();
    try {
      await target.waitFor(300, 120_000);
      await eventually(async () => {
        const row = await sql().one<{ n: number }>(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE id = ANY($1::uuid[]) AND status = 'succeeded'`,
          [ids],
        );
        return row!.n === 300;
      }, 120_000);
    } finally {
      await one.stop();
      await two.stop();
    }
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(target.received.length, 300);
    assert.equal(new Set(target.received.map((d) => d.headers['webhook-id'])).size, 300, 'no message twice');
    const attempts = await sql().one<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_attempts WHERE delivery_id = ANY($1::uuid[])',
      [ids],
    );
    assert.equal(attempts!.n, 300);
  });

  it('when the signing secret cannot be unsealed, then the delivery fails for good and the subscription shows why, without retries', async () => {
    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    const token = await tokenFor(t, admin);
    const target = await receiver();
    const created = await t.http
      .post('/api/webhooks')
      .set(bearer(token))
      .send({ url: target.url, events: ['member.created'] })
      .expect(201);
    // sealed under another APP_SECRET: "Unsupported state or unable to authenticate data"
    const foreign = new WebhookSecrets(deriveKey('another-secret-another-secret-another-0', 'webhook-secrets')).seal(
      newWebhookSecret(),
    );
    await sql().query('UPDATE webhook_subscriptions SET secret_sealed = $2 WHERE id = $1', [created.body.id, foreign]);
    for (const email of ['lost1@example.test', 'lost2@example.test']) {
      await t.http
        .post('/api/members')
        .set(bearer(token))
        .send({ firstName: 'Lost', lastName: 'Key', email })
        .expect(201);
    }
    const running = t.container.services.webhookDispatcher; // the app's own, driven by hand
    await running.dispatchOnce();
    await running.drain();

    const subscription = (await t.http.get(`/api/webhooks/${created.body.id}`).set(bearer(token)).expect(200)).body;
    assert.equal(subscription.status, 'disabled');
    assert.match(
      subscription.disabledReason,
      /^The signing secret cannot be unsealed \(Unsupported state or unable to authenticate data\) at .*; rotate the secret, then resume/,
    );
    const list = (await t.http.get(`/api/webhooks/${created.body.id}/deliveries`).set(bearer(token)).expect(200)).body
      .data;
    assert.deepEqual(
      list.map((d: { status: string }) => d.status),
      ['failed', 'failed'],
    );
    const attempted = list.filter((d: { attemptCount: number }) => d.attemptCount > 0);
    assert.ok(attempted.length >= 1);
    assert.match(attempted[0].attempts[0].error, /signing secret cannot be unsealed/);
    assert.ok(
      list.every((d: { nextAttemptAt: string | null }) => d.nextAttemptAt === null),
      'nothing scheduled: no retry loop',
    );
    assert.equal((await running.dispatchOnce()).claimed, 0);
    assert.equal(target.received.length, 0);

    // Repair: a new secret (the lost one is dropped even during the rotation grace period), then resume.
    const rotated = await t.http.post(`/api/webhooks/${created.body.id}/rotate-secret`).set(bearer(token)).expect(200);
    await t.http.patch(`/api/webhooks/${created.body.id}`).set(bearer(token)).send({ status: 'active' }).expect(200);
    await t.http
      .post('/api/members')
      .set(bearer(token))
      .send({ firstName: 'Found', lastName: 'Key', email: 'found@example.test' })
      .expect(201);
    await running.dispatchOnce();
    await running.drain();
    const [delivered] = await target.waitFor(1);
    assert.equal(delivered!.headers['webhook-signature']!.split(' ').length, 1);
    assert.ok(new Webhook(rotated.body.secret).verify(delivered!.body, delivered!.headers));
  });
});
