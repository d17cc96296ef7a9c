// At-least-once across a restart: the service stops with deliveries still owed, a new process on
// the same database starts, and the subscriber gets every one of them.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { bearer, buildUser, tokenFor } from '../factories/index.ts';
import { eventually, startReceiver, type Receiver } from '../factories/webhook-receiver.ts';
import { createTestDatabase, type TestDatabase } from '../setup/database.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

const env = { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOKS_RETRY_DELAYS: '1,1,1' };

describe('webhook deliveries across a restart', () => {
  let database: TestDatabase;
  let receiver: Receiver | undefined;
  let app: TestApp | undefined;
  after(async () => {
    await receiver?.close();
    await app?.close();
    await database?.drop();
  });

  it('when the service stops with pending deliveries and starts again, then the receiver gets them all', async () => {
    database = await createTestDatabase({ persistent: true });
    let accepting = false;
    receiver = await startReceiver(() => (accepting ? 204 : 503));

    // First life: one delivery is never attempted (no workers), and the subscriber is down.
    app = await startTestApp({ database, env, workers: false });
    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    const token = await tokenFor(app, admin);
    const webhook = await app.http
      .post('/api/webhooks')
      .set(bearer(token))
      .send({ url: receiver.url, events: ['member.created'] })
      .expect(201);
    const member = await app.http
      .post('/api/members')
      .set(bearer(token))
      .send({ firstName: 'Kept', lastName: 'Safe', email: 'kept@example.test' })
      .expect(201);
    const [pending] = (await app.http.get(`/api/webhooks/${webhook.body.id}/deliveries`).set(bearer(token)).expect(200))
      .body.data;
    assert.equal(pending.status, 'pending');
    assert.equal(pending.attemptCount, 0);
    await app.close();
    app = undefined;

    // Second life: same database, workers on; the subscriber is back.
    accepting = true;
    app = await startTestApp({ database, env, workers: true });
    const [delivery] = await receiver.waitFor(1, 30_000);
    const payload = new Webhook(webhook.body.secret).verify(delivery!.body, delivery!.headers) as {
      type: string;
      data: { id: string };
    };
    assert.equal(payload.type, 'member.created');
    assert.equal(payload.data.id, member.body.id);
    assert.equal(delivery!.headers['webhook-id'], pending.eventId);
    const done = await eventually(async () => {
      const list = (
        await app!.http
          .get(`/api/webhooks/${webhook.body.id}/deliveries`)
          .set(bearer(await tokenFor(app!, admin)))
          .expect(200)
      ).body.data;
      return list[0]?.status === 'succeeded' && list[0];
    });
    assert.equal(done.attemptCount, 1);
  });

  it('when the service stops between a failed attempt and its retry, then the retry happens after the restart', async () => {
    let accepting = false;
    const flaky = await startReceiver(() => (accepting ? 204 : 500));
    try {
      const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
      const token = await tokenFor(app!, admin);
      const webhook = await app!.http
        .post('/api/webhooks')
        .set(bearer(token))
        .send({ url: flaky.url, events: ['member.created'] })
        .expect(201);
      await app!.http
        .post('/api/members')
        .set(bearer(token))
        .send({ firstName: 'Re', lastName: 'Try', email: 'retry@example.test' })
        .expect(201);
      await flaky.waitFor(1); // first attempt failed; the retry is queued for a second later
      await app!.close();
      app = undefined;

      accepting = true;
      app = await startTestApp({ database, env, workers: true });
      await flaky.waitFor(2, 30_000);
      const list = await eventually(async () => {
        const body = (
          await app!.http
            .get(`/api/webhooks/${webhook.body.id}/deliveries`)
            .set(bearer(await tokenFor(app!, admin)))
            .expect(200)
        ).body.data;
        return body[0]?.status === 'succeeded' && body;
      });
      assert.deepEqual(
        list[0].attempts.map((a: { statusCode: number }) => a.statusCode),
        [500, 204],
      );
    } finally {
      await flaky.close();
    }
  });
});
