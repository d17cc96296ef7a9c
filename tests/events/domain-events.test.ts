// The domain event outbox: every change records its event in its own transaction, job subscribers
// run in the workers once per event, and old events are purged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jobHandlers } from '../../src/jobs/registry.ts';
import { systemActor } from '../../src/shared/access/actor.ts';
import type { DomainEvent } from '../../src/shared/domain-events/domain-event.ts';
import { DomainEventRecord } from '../../src/shared/domain-events/domain-event.model.ts';
import { bearer, buildUser, tokenFor } from '../factories/index.ts';
import { eventually } from '../factories/webhook-receiver.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('domain events', () => {
  let t: TestApp;
  let token: string;
  let organizationId: string;
  let userId: string;
  const handled: Record<string, DomainEvent[]> = { counter: [], flaky: [] };
  let flakyFailures = 0;

  before(async () => {
    t = await startTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' } });
    // two job subscribers of another module, registered before any event
    t.container.domainEvents.subscribe({
      name: 'test.counter',
      events: ['member.created', 'member.deleted'],
      handle: async (event) => void handled.counter!.push(event),
    });
    t.container.domainEvents.subscribe({
      name: 'test.flaky',
      events: ['member.created'],
      handle: async (event, { attempt }) => {
        if (attempt === 0) {
          flakyFailures++;
          throw new Error('the CRM is down');
        }
        handled.flaky!.push(event);
      },
    });
    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    organizationId = admin.organizationId!;
    userId = admin.id;
    token = await tokenFor(t, admin);
  });
  after(() => t.close());

  const eventsOf = (type: string) =>
    DomainEventRecord.findAll({ where: { organizationId, type }, order: [['occurredAt', 'ASC']] });
  const newMember = (email: string) =>
    t.http.post('/api/members').set(bearer(token)).send({ firstName: 'Ada', lastName: 'Lovelace', email });

  it('when a member is created and no webhook is subscribed, then the event is still recorded with its actor and data', async () => {
    const member = await newMember('ada@example.test').expect(201);
    const [event] = await eventsOf('member.created');
    assert.ok(event);
    assert.match(event.id, /^[0-9a-f-]{36}$/);
    assert.equal(event.actorType, 'user');
    assert.equal(event.actorId, userId);
    assert.deepEqual(event.data, member.body);
    assert.equal(
      await t.container.models.WebhookEvent.count({ where: { organizationId } }),
      0,
      'no webhook event without a subscription',
    );
  });

  it('when the change is rolled back (a duplicate e-mail), then no event is recorded', async () => {
    await newMember('ada@example.test').expect(409);
    assert.equal((await eventsOf('member.created')).length, 1);
  });

  it('when a webhook is subscribed, then its message id is the domain event id', async () => {
    await t.http
      .post('/api/webhooks')
      .set(bearer(token))
      .send({ url: 'http://127.0.0.1:9/hooks', events: ['member.updated'] })
      .expect(201);
    const [member] = await t.container.models.Member.findAll({ where: { organizationId } });
    await t.http
      .put(`/api/members/${member!.id}`)
      .set(bearer(token))
      .send({ firstName: 'Ada B.', lastName: 'Lovelace', email: 'ada@example.test' })
      .expect(200);
    const [event] = await eventsOf('member.updated');
    const [webhookEvent] = await t.container.models.WebhookEvent.findAll({ where: { organizationId } });
    assert.equal(webhookEvent!.id, `msg_${event!.id.replaceAll('-', '')}`);
    assert.equal(JSON.parse(webhookEvent!.body).data.firstName, 'Ada B.');
  });

  it('when the workers run, then each job subscriber handles each event once, and a failing one is retried alone', async () => {
    const [queued] = await t.db.sequelize.query(
      "SELECT data->>'subscriber' AS subscriber FROM pgboss.job WHERE name = 'domain-event.deliver' ORDER BY 1",
    );
    assert.deepEqual(
      (queued as Array<{ subscriber: string }>).map((j) => j.subscriber),
      ['test.counter', 'test.flaky'],
      'one job per subscriber of member.created, none for the rolled-back one',
    );
    await t.container.queue.start({ workers: true });
    const [created] = await eventsOf('member.created');
    // the flaky subscriber's first attempt fails and pg-boss schedules its retry 10 s or more on
    // (domainEventDeliverJob's policy): bring that retry forward instead of waiting for it
    const retried = await eventually(async () => {
      const [retried] = await t.db.sequelize.query(
        "UPDATE pgboss.job SET start_after = now() WHERE name = 'domain-event.deliver' AND state = 'retry' RETURNING data->>'subscriber' AS subscriber",
      );
      return (retried as Array<{ subscriber: string }>).length > 0 && (retried as Array<{ subscriber: string }>);
    }, 30_000);
    assert.deepEqual(
      retried.map((j) => j.subscriber),
      ['test.flaky'],
      'only the failed delivery waits for a retry',
    );
    const receiptsOf = async () => {
      const [rows] = await t.db.sequelize.query(
        'SELECT subscriber FROM domain_event_receipts WHERE event_id = $1 ORDER BY subscriber',
        { bind: [created!.id] },
      );
      return (rows as Array<{ subscriber: string }>).map((r) => r.subscriber);
    };
    // a receipt is written when its delivery completes, just after the handler returned: waiting for
    // both receipts waits for both handlers too
    await eventually(async () => (await receiptsOf()).length === 2, 30_000);
    assert.equal(flakyFailures, 1);
    assert.deepEqual(
      handled.flaky!.map((e) => e.id),
      [created!.id],
    );
    assert.deepEqual(
      handled.counter!.map((e) => e.id),
      [created!.id],
      'the counter ran once, not again with the flaky retry',
    );
    assert.equal(handled.counter![0]!.organizationId, organizationId);
    assert.deepEqual(handled.counter![0]!.actor, { type: 'user', id: userId });
    assert.deepEqual(await receiptsOf(), ['test.counter', 'test.flaky']);
  });

  it('when the same event is delivered to a subscriber twice, then the second delivery does nothing', async () => {
    const [created] = await eventsOf('member.created');
    const id = await t.container.queue.enqueue('domain-event.deliver', {
      eventId: created!.id,
      subscriber: 'test.counter',
    });
    await eventually(
      async () => (await t.container.queue.getJob('domain-event.deliver', id!))?.state === 'completed',
      30_000,
    );
    assert.equal(handled.counter!.length, 1);
  });

  it('when a subscriber names an unknown kind, or a service publishes one, then it is refused and nothing is recorded', async () => {
    assert.throws(
      () =>
        t.container.domainEvents.subscribe({
          name: 'test.typo',
          events: ['member.exploded'],
          handle: async () => undefined,
        }),
      /unknown event kinds: member.exploded/,
    );
    await assert.rejects(
      t.db.sequelize.transaction((transaction) =>
        t.container.domainEvents.publish(systemActor(organizationId), 'member.exploded', {}, transaction),
      ),
      /not in any module's event catalog/,
    );
    assert.equal((await eventsOf('member.exploded')).length, 0);
  });

  it('when the purge runs, then events older than the retention are removed with their receipts and newer ones stay', async () => {
    const before = await DomainEventRecord.count();
    assert.ok(before >= 2);
    t.clock.advance(31 * 86400_000);
    const fresh = await t.db.sequelize.transaction((transaction) =>
      t.container.domainEvents.record(systemActor(organizationId), 'course.created', { id: 'c1' }, transaction),
    );
    const purge = jobHandlers(t.container)['domain-events.purge'];
    await purge({}, { jobId: 'test', attempt: 0, logger: t.container.logger });
    assert.deepEqual(
      (await DomainEventRecord.findAll()).map((e) => e.id),
      [fresh.id],
    );
    const [receipts] = await t.db.sequelize.query('SELECT count(*)::int AS n FROM domain_event_receipts');
    assert.equal((receipts as Array<{ n: number }>)[0]!.n, 0);
  });
});
