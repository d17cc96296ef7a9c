// Deliveries end to end: the real job workers POST to a receiver on loopback, which verifies every
// message with the standardwebhooks library. Retries are one second apart here (WEBHOOKS_RETRY_DELAYS).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { bearer, buildUser, tokenFor } from '../factories/index.ts';
import { stubDns } from '../factories/dns.ts';
import { eventually, startReceiver, type Receiver, type Responder } from '../factories/webhook-receiver.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('webhook deliveries', () => {
  let t: TestApp;
  const dns = stubDns();
  const receivers: Receiver[] = [];

  before(async () => {
    t = await startTestApp({
      workers: true,
      dnsLookup: dns.lookup,
      env: {
        WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOKS_RETRY_DELAYS: '1,1',
        WEBHOOKS_TIMEOUT_MS: '3000' /* generous: a loaded CI machine must not turn a slow answer into a retry */,
      },
    });
  });
  after(async () => {
    for (const receiver of receivers) await receiver.close();
    await t.close();
  });

  /** A fresh organization, its admin's token, a receiver and a subscription to it. */
  async function subscribed(events: string[], respond?: Responder) {
    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    const token = await tokenFor(t, admin);
    const receiver = await startReceiver(respond);
    receivers.push(receiver);
    const created = await t.http
      .post('/api/webhooks')
      .set(bearer(token))
      .send({ url: receiver.url, events })
      .expect(201);
    return { token, receiver, webhookId: created.body.id as string, secret: created.body.secret as string };
  }
  const deliveriesOf = async (token: string, webhookId: string) =>
    (await t.http.get(`/api/webhooks/${webhookId}/deliveries`).set(bearer(token)).expect(200)).body.data;
  const newMember = (token: string, email: string) =>
    t.http.post('/api/members').set(bearer(token)).send({ firstName: 'Grace', lastName: 'Hopper', email }).expect(201);

  it('when a member is created, then the subscriber receives a Standard Webhooks message its library verifies', async () => {
    const { token, receiver, secret } = await subscribed(['member.created']);
    const member = await newMember(token, 'grace@example.test');
    const [delivery] = await receiver.waitFor(1);
    const verified = new Webhook(secret).verify(delivery!.body, delivery!.headers) as {
      type: string;
      timestamp: string;
      data: unknown;
    };
    assert.equal(verified.type, 'member.created');
    assert.deepEqual(verified.data, member.body);
    assert.match(verified.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.deepEqual(Object.keys(verified).sort(), ['data', 'timestamp', 'type']);
    assert.match(delivery!.headers['webhook-id']!, /^msg_[0-9a-f]{32}$/);
    assert.match(delivery!.headers['webhook-signature']!, /^v1,/);
    assert.equal(delivery!.headers['content-type'], 'application/json');
    assert.match(delivery!.headers['user-agent']!, /^Guildhall-Webhooks/);
    assert.throws(() => new Webhook(secret).verify(delivery!.body.replace('Grace', 'Grece'), delivery!.headers));
  });

  it('when members, events and courses change, then each subscribed kind arrives once and nothing else', async () => {
    const kinds = [
      'member.created',
      'member.updated',
      'member.deleted',
      'event.created',
      'event.updated',
      'event.deleted',
      'course.created',
      'course.updated',
      'course.deleted',
    ];
    const all = await subscribed(kinds);
    const onlyDeletes = await t.http
      .post('/api/webhooks')
      .set(bearer(all.token))
      .send({ url: all.receiver.url.replace('/hooks', '/deletes'), events: ['member.deleted'] })
      .expect(201);
    const member = await newMember(all.token, 'kinds@example.test');
    await t.http
      .put(`/api/members/${member.body.id}`)
      .set(bearer(all.token))
      .send({ firstName: 'Grace B.', lastName: 'Hopper', email: 'kinds@example.test' })
      .expect(200);
    await t.http.delete(`/api/members/${member.body.id}`).set(bearer(all.token)).expect(204);
    const event = await t.http
      .post('/api/events')
      .set(bearer(all.token))
      .send({ title: 'Meetup', startsAt: '2026-01-01T18:00:00Z', endsAt: '2026-01-01T20:00:00Z' })
      .expect(201);
    await t.http
      .put(`/api/events/${event.body.id}`)
      .set(bearer(all.token))
      .send({ title: 'Meetup', startsAt: '2026-01-01T18:00:00Z', endsAt: '2026-01-01T20:00:00Z', status: 'published' })
      .expect(200);
    await t.http.delete(`/api/events/${event.body.id}`).set(bearer(all.token)).expect(204);
    const course = await t.http.post('/api/courses').set(bearer(all.token)).send({ title: 'Intro' }).expect(201);
    await t.http
      .put(`/api/courses/${course.body.id}`)
      .set(bearer(all.token))
      .send({ title: 'Intro', status: 'published' })
      .expect(200);
    await t.http.delete(`/api/courses/${course.body.id}`).set(bearer(all.token)).expect(204);

    const received = await all.receiver.waitFor(10); // nine kinds, plus member.deleted for the second subscription
    assert.deepEqual(
      received.map((d) => JSON.parse(d.body).type as string).sort(),
      [...kinds, 'member.deleted'].sort(),
    );
    const deleted = received.filter((d) => JSON.parse(d.body).type === 'member.deleted');
    assert.equal(
      deleted[0]!.headers['webhook-id'],
      deleted[1]!.headers['webhook-id'],
      'one event id for every subscriber',
    );
    assert.equal(JSON.parse(deleted[0]!.body).data.firstName, 'Grace B.', 'a deletion carries the record as it was');
    assert.equal((await deliveriesOf(all.token, onlyDeletes.body.id)).length, 1);
  });

  it('when a change is rolled back, then no delivery exists for it', async () => {
    const { token, webhookId } = await subscribed(['member.created']);
    await newMember(token, 'once@example.test');
    expectProblem(
      await t.http
        .post('/api/members')
        .set(bearer(token))
        .send({ firstName: 'Dup', lastName: 'Licate', email: 'ONCE@example.test' }),
      409,
      'already_exists',
    );
    assert.equal((await deliveriesOf(token, webhookId)).length, 1);
  });

  it('when the receiver answers 500 and then 200, then it is retried and every attempt is kept', async () => {
    const { token, receiver, webhookId, secret } = await subscribed(['member.created'], (attempt) =>
      attempt === 1 ? 500 : 200,
    );
    await newMember(token, 'retry@example.test');
    const [first, second] = await receiver.waitFor(2);
    assert.equal(first!.headers['webhook-id'], second!.headers['webhook-id']);
    assert.ok(new Webhook(secret).verify(second!.body, second!.headers));
    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(token, webhookId);
      return list[0]?.status === 'succeeded' && list;
    });
    assert.equal(delivery.attemptCount, 2);
    assert.equal(delivery.lastStatusCode, 200);
    assert.equal(delivery.nextAttemptAt, null);
    assert.deepEqual(
      delivery.attempts.map((a: { statusCode: number }) => a.statusCode),
      [500, 200],
    );
    assert.equal(delivery.attempts[0].error, 'HTTP 500');
    assert.ok(delivery.attempts.every((a: { durationMs: number }) => a.durationMs >= 0));

    // retention: a month later the daily purge removes the finished delivery, its attempts and its event
    const purged = await t.container.services.webhookDeliveries.purgeFinishedBefore(new Date(Date.now() + 60_000));
    assert.ok(purged >= 1);
    assert.equal((await deliveriesOf(token, webhookId)).length, 0);
    const [events] = await t.db.sequelize.query('SELECT count(*)::int AS n FROM webhook_events WHERE id = $1', {
      bind: [delivery.eventId],
    });
    assert.equal((events as Array<{ n: number }>)[0]!.n, 0);
  });

  it('when the receiver answers 410 Gone, then the subscription is disabled and nothing more is sent until it is resumed', async () => {
    let gone = true;
    const { token, receiver, webhookId } = await subscribed(['member.created'], () => (gone ? 410 : 204));
    await newMember(token, 'gone@example.test');
    const subscription = await eventually(async () => {
      const body = (await t.http.get(`/api/webhooks/${webhookId}`).set(bearer(token)).expect(200)).body;
      return body.status === 'disabled' && body;
    });
    assert.match(subscription.disabledReason, /410 Gone/);
    const [delivery] = await deliveriesOf(token, webhookId);
    assert.equal(delivery.status, 'failed');
    assert.equal(delivery.attemptCount, 1);
    await newMember(token, 'ignored@example.test');
    expectProblem(
      await t.http.post(`/api/webhooks/${webhookId}/deliveries/${delivery.id}/redeliver`).set(bearer(token)),
      409,
      'conflict',
    );
    assert.equal(
      (await deliveriesOf(token, webhookId)).length,
      1,
      'no delivery is recorded for a disabled subscription',
    );

    gone = false;
    // paused from disabled, it is no longer disabled, and says no reason (the contract's rule)
    const paused = await t.http
      .patch(`/api/webhooks/${webhookId}`)
      .set(bearer(token))
      .send({ status: 'paused' })
      .expect(200);
    assert.equal(paused.body.disabledReason, null);
    await t.http.patch(`/api/webhooks/${webhookId}`).set(bearer(token)).send({ status: 'active' }).expect(200);
    await newMember(token, 'back@example.test');
    await receiver.waitFor(2);
    assert.equal(JSON.parse(receiver.received[1]!.body).data.email, 'back@example.test');
  });

  it('when a failed delivery is redelivered, then it is sent again with the same webhook-id and a fresh schedule', async () => {
    let status = 503;
    const { token, receiver, webhookId } = await subscribed(['member.created'], () => status);
    await newMember(token, 'redeliver@example.test');
    const [failed] = await eventually(async () => {
      const list = await deliveriesOf(token, webhookId);
      return list[0]?.status === 'failed' && list;
    }, 30_000);
    assert.equal(failed.attemptCount, 3);
    status = 200;
    const queued = await t.http
      .post(`/api/webhooks/${webhookId}/deliveries/${failed.id}/redeliver`)
      .set(bearer(token))
      .expect(202);
    assert.equal(queued.body.status, 'pending');
    const [done] = await eventually(async () => {
      const list = await deliveriesOf(token, webhookId);
      return list[0]?.status === 'succeeded' && list;
    });
    assert.equal(done.attemptCount, 4);
    assert.deepEqual(
      done.attempts.map((a: { statusCode: number }) => a.statusCode),
      [503, 503, 503, 200],
    );
    assert.equal(new Set(receiver.received.map((d) => d.headers['webhook-id'])).size, 1);
    const onlySucceeded = await t.http
      .get(`/api/webhooks/${webhookId}/deliveries?status=succeeded`)
      .set(bearer(token))
      .expect(200);
    assert.equal(onlySucceeded.body.pagination.totalItems, 1);
    expectProblem(
      await t.http.get(`/api/webhooks/${webhookId}/deliveries?status=lost`).set(bearer(token)),
      400,
      'invalid_filter',
    );
    expectProblem(
      await t.http
        .post(`/api/webhooks/${webhookId}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`)
        .set(bearer(token)),
      404,
      'not_found',
    );
  });

  it('when a subscription is paused, then its events are not sent; after resuming they are', async () => {
    const { token, receiver, webhookId } = await subscribed(['member.created']);
    await t.http.patch(`/api/webhooks/${webhookId}`).set(bearer(token)).send({ status: 'paused' }).expect(200);
    await newMember(token, 'paused@example.test');
    assert.equal((await deliveriesOf(token, webhookId)).length, 0);
    await t.http.patch(`/api/webhooks/${webhookId}`).set(bearer(token)).send({ status: 'active' }).expect(200);
    await newMember(token, 'resumed@example.test');
    const [delivery] = await receiver.waitFor(1);
    assert.equal(JSON.parse(delivery!.body).data.email, 'resumed@example.test');
  });

  it('when deliveries wait on a paused subscription, then resuming sends them', async () => {
    let up = false;
    const { token, receiver, webhookId } = await subscribed(['member.created'], () => (up ? 204 : 503));
    await newMember(token, 'waiting@example.test');
    await receiver.waitFor(1); // the first attempt failed; a retry is scheduled
    await t.http.patch(`/api/webhooks/${webhookId}`).set(bearer(token)).send({ status: 'paused' }).expect(200);
    await new Promise((r) => setTimeout(r, 2500)); // the retry comes due while paused and waits
    const waiting = await deliveriesOf(token, webhookId);
    assert.equal(waiting[0].status, 'pending');
    const attemptsWhilePaused = waiting[0].attemptCount;
    // while paused a redelivery is refused, but one of a delivery that does not exist is still 404
    const redeliver = (id: string) =>
      t.http.post(`/api/webhooks/${webhookId}/deliveries/${id}/redeliver`).set(bearer(token));
    expectProblem(await redeliver(waiting[0].id), 409, 'conflict');
    expectProblem(await redeliver('00000000-0000-4000-8000-000000000000'), 404, 'not_found');
    up = true;
    await t.http.patch(`/api/webhooks/${webhookId}`).set(bearer(token)).send({ status: 'active' }).expect(200);
    const [done] = await eventually(async () => {
      const list = await deliveriesOf(token, webhookId);
      return list[0]?.status === 'succeeded' && list;
    });
    assert.equal(done.attemptCount, attemptsWhilePaused + 1);
  });

  it('when the secret was just rotated, then deliveries are signed with both secrets and either verifies', async () => {
    const { token, receiver, webhookId, secret: oldSecret } = await subscribed(['member.created']);
    const rotated = await t.http.post(`/api/webhooks/${webhookId}/rotate-secret`).set(bearer(token)).expect(200);
    await newMember(token, 'rotated@example.test');
    const [delivery] = await receiver.waitFor(1);
    assert.equal(delivery!.headers['webhook-signature']!.split(' ').length, 2);
    assert.ok(new Webhook(rotated.body.secret).verify(delivery!.body, delivery!.headers));
    assert.ok(new Webhook(oldSecret).verify(delivery!.body, delivery!.headers));

    // a second rotation within the day keeps both earlier secrets in their grace (it ended the first's)
    const again = await t.http.post(`/api/webhooks/${webhookId}/rotate-secret`).set(bearer(token)).expect(200);
    await newMember(token, 'rotated-twice@example.test');
    const second = (await receiver.waitFor(2))[1]!;
    assert.equal(second.headers['webhook-signature']!.split(' ').length, 3);
    for (const secret of [again.body.secret, rotated.body.secret, oldSecret])
      assert.ok(new Webhook(secret).verify(second.body, second.headers));
  });

  it('when the subscriber name resolves to a metadata address at delivery time (DNS rebinding), then nothing is sent and the attempt says why', async () => {
    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    const token = await tokenFor(t, admin);
    const receiver = await startReceiver();
    receivers.push(receiver);
    dns.set('rebind.partner.test', ['127.0.0.1']);
    const created = await t.http
      .post('/api/webhooks')
      .set(bearer(token))
      .send({ url: `http://rebind.partner.test:${receiver.port}/hooks`, events: ['member.created'] })
      .expect(201);
    dns.set('rebind.partner.test', ['169.254.169.254']);
    await newMember(token, 'rebind@example.test');
    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(token, created.body.id);
      return list[0]?.attemptCount >= 1 && list;
    });
    assert.match(
      delivery.attempts[0].error,
      /^refused: host rebind\.partner\.test resolves to a link-local address \(169\.254\.169\.254\)/,
    );
    assert.equal(delivery.attempts[0].statusCode, null);
    assert.equal(receiver.received.length, 0);
  });
});

describe('webhook deliveries to a receiver that never answers in time', () => {
  // an app of its own whose attempts time out after 200 ms (the one above allows 3 s, so that a loaded
  // machine does not turn a slow answer into a retry): a receiver answering after 1.5 s is slow on any
  // machine, and the schedule's three attempts wait 0.6 s for it, not 9 s
  let t: TestApp;
  let receiver: Receiver;
  before(async () => {
    t = await startTestApp({
      workers: true,
      env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOKS_RETRY_DELAYS: '1,1', WEBHOOKS_TIMEOUT_MS: '200' },
    });
    receiver = await startReceiver(async () => {
      await new Promise((r) => setTimeout(r, 1500));
      return 200;
    });
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  it('when the receiver never answers in time, then the attempt records the timeout and the schedule ends in failure', async () => {
    const token = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN' }));
    const created = await t.http
      .post('/api/webhooks')
      .set(bearer(token))
      .send({ url: receiver.url, events: ['member.created'] })
      .expect(201);
    await t.http
      .post('/api/members')
      .set(bearer(token))
      .send({ firstName: 'Grace', lastName: 'Hopper', email: 'slow@example.test' })
      .expect(201);
    const [delivery] = await eventually(async () => {
      const list = (await t.http.get(`/api/webhooks/${created.body.id}/deliveries`).set(bearer(token)).expect(200)).body
        .data;
      return list[0]?.status === 'failed' && list;
    }, 30_000);
    assert.equal(delivery.attemptCount, 3, 'the first attempt and two retries');
    assert.ok(
      delivery.attempts.every(
        (a: { error: string; statusCode: null }) => a.statusCode === null && /no answer within 200 ms/.test(a.error),
      ),
    );
    assert.equal(delivery.nextAttemptAt, null);
    assert.ok(receiver.received.length <= 3);
  });
});
