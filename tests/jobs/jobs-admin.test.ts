import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, buildApiKey, buildUser, tokenFor } from '../factories/index.ts';
import { eventually } from '../factories/webhook-receiver.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('background jobs for admins', () => {
  let t: TestApp;
  let adminToken: string;
  let clientToken: string;
  let organizationId: string;

  before(async () => {
    t = await startTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' } });
    adminToken = await tokenFor(t, await buildUser({ role: 'ROLE_PLATFORM_ADMIN' }));
    const client = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    organizationId = client.organizationId!;
    clientToken = await tokenFor(t, client);
  });
  after(() => t.close());

  it('when a change queues a delivery, then admins see the job with its state, attempts and data', async () => {
    await t.http
      .post('/api/webhooks')
      .set(bearer(clientToken))
      .send({ url: 'http://127.0.0.1:9/hooks', events: ['member.created'] })
      .expect(201);
    await t.http
      .post('/api/members')
      .set(bearer(clientToken))
      .send({ firstName: 'Job', lastName: 'Maker', email: 'job@example.test' })
      .expect(201);
    const list = await t.http
      .get('/api/admin/jobs?name=webhook.deliver&state=created')
      .set(bearer(adminToken))
      .expect(200);
    assert.equal(list.body.pagination.totalItems, 1);
    const [job] = list.body.data;
    assert.equal(job.name, 'webhook.deliver');
    assert.equal(job.state, 'created');
    assert.equal(job.attempts, 0);
    assert.equal(job.retryLimit, 10);
    assert.equal(job.lastError, null);
    assert.equal(job.archived, false);
    assert.match(job.data.deliveryId, /^[0-9a-f-]{36}$/);
    const one = await t.http.get(`/api/admin/jobs/${job.id}`).set(bearer(adminToken)).expect(200);
    assert.deepEqual(one.body, job);
    assert.match(list.headers.link, /rel="first"/);
  });

  it('when a job fails, then its attempts and last error are visible and it waits for a retry', async () => {
    const id = await t.container.queue.enqueue('webhook.deliver', { deliveryId: 'not-a-uuid', attempt: 0 });
    await t.container.queue.start({ workers: true }); // from here on the workers run (the test above needed them idle)
    const job = await eventually(async () => {
      const body = (await t.http.get(`/api/admin/jobs/${id}`).set(bearer(adminToken)).expect(200)).body;
      return body.state === 'retry' && body;
    });
    assert.equal(job.attempts, 1);
    assert.match(job.lastError, /uuid/);
    assert.ok(job.startedOn);
    const retrying = await t.http.get('/api/admin/jobs?state=retry').set(bearer(adminToken)).expect(200);
    assert.ok(retrying.body.data.some((j: { id: string }) => j.id === id));
    const done = await t.http
      .get('/api/admin/jobs?state=completed&name=no.such.job')
      .set(bearer(adminToken))
      .expect(200);
    assert.equal(done.body.pagination.totalItems, 0);
  });

  it('when the filters or the id are malformed or unknown, then 400 or 404', async () => {
    expectProblem(await t.http.get('/api/admin/jobs?state=sleeping').set(bearer(adminToken)), 400, 'invalid_filter');
    expectProblem(await t.http.get('/api/admin/jobs?owner=me').set(bearer(adminToken)), 400, 'invalid_filter');
    expectProblem(await t.http.get('/api/admin/jobs/42').set(bearer(adminToken)), 400, 'validation_failed');
    expectProblem(
      await t.http.get('/api/admin/jobs/00000000-0000-4000-8000-000000000000').set(bearer(adminToken)),
      404,
      'not_found',
    );
  });

  it('when anyone but a platform admin asks, then 403 (or 401 without credentials)', async () => {
    expectProblem(await t.http.get('/api/admin/jobs').set(bearer(clientToken)), 403, 'forbidden');
    expectProblem(
      await t.http.get('/api/admin/jobs').set(bearer((await buildApiKey(organizationId)).secret)),
      403,
      'forbidden',
    );
    expectProblem(await t.http.get('/api/admin/jobs'), 401, 'unauthenticated');
    expectProblem(
      await t.http.get('/api/admin/jobs/00000000-0000-4000-8000-000000000000').set(bearer(clientToken)),
      403,
      'forbidden',
    );
  });
});
