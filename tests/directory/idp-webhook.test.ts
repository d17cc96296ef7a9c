// POST /webhooks/idp: WorkOS's signature scheme checked before anything reads the body (raw bytes,
// constant time, a 5-minute window either side of our clock), events recorded by id (a replay is
// acknowledged and ignored) and processed by the `idp.event` job.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AuditEntry } from '../../src/modules/audit/audit-entry.model.ts';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import {
  type IdentityServiceStandIn,
  signWebhook,
  startIdentityServiceStandIn,
} from '../support/identity-service-stand-in.ts';

const SECRET = 'whsec_idp_webhook_test_0123';

describe('POST /webhooks/idp (signature, de-duplication, acknowledgement)', () => {
  let t: TestApp;
  let idp: IdentityServiceStandIn;
  let platformToken: string;
  let organizationId: string;

  const now = () => t.clock.now().getTime();
  const deliver = (body: string, signature?: string) => {
    const req = t.http.post('/webhooks/idp').set('Content-Type', 'application/json');
    if (signature !== undefined) req.set('WorkOS-Signature', signature);
    return req.send(body);
  };
  const signed = (body: string, at = now(), secret = SECRET) => deliver(body, signWebhook(secret, body, at));
  const userCreated = (id: string, userId: string) =>
    JSON.stringify({
      id,
      event: 'dsync.user.created',
      data: {
        id: userId,
        directory_id: 'directory_webhook',
        emails: [{ primary: true, value: `${userId}@webhook.test` }],
        first_name: 'Wanda',
        last_name: 'Hook',
        state: 'active',
        raw_attributes: {},
      },
    });
  const eventRow = async (id: string) =>
    (
      (await t.db.sequelize.query('SELECT processed_at, error FROM idp_webhook_events WHERE id = $1', {
        bind: [id],
      })) as unknown as [Array<{ processed_at: Date | null; error: string | null }>]
    )[0][0];
  async function processed(id: string): Promise<{ processed_at: Date | null; error: string | null }> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const row = await eventRow(id);
      if (row?.processed_at || row?.error) return row;
      if (Date.now() > deadline) assert.fail(`event ${id} was not processed`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  before(async () => {
    idp = await startIdentityServiceStandIn();
    t = await startTestApp({ env: { IDENTITY_SERVICE_API_URL: idp.url }, workers: true });
    platformToken = await tokenFor(t, await buildUser({ role: 'ROLE_PLATFORM_ADMIN' }));
    organizationId = (await buildOrganization()).id;
    await t.http
      .post('/api/admin/directories')
      .set(bearer(platformToken))
      .send({ organizationId, name: 'Okta via WorkOS', provider: 'identity_service', externalId: 'directory_webhook' })
      .expect(201);
  });
  after(async () => {
    await t.close();
    await idp.close();
  });

  it('when no Webhook Secret is configured, then a delivery is 401 (not 500) and nothing is recorded', async () => {
    const body = userCreated('evt_unconfigured', 'directory_user_unconfigured');
    const refused = expectProblem(await signed(body), 401, 'unauthenticated');
    assert.match(refused.detail, /No Webhook Secret/);
    assert.equal(await eventRow('evt_unconfigured'), undefined);
    await t.http
      .put('/api/admin/integrations/identity-service')
      .set(bearer(platformToken))
      .send({
        apiKey: idp.apiKey,
        clientId: idp.clientId,
        redirectUri: 'http://guildhall.test/auth/callback/idp',
        webhookSecret: SECRET,
      })
      .expect(200);
  });

  it('when the signature is valid, then 200 {received: true} and the job creates the user', async () => {
    const res = await signed(userCreated('evt_valid', 'directory_user_valid'));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { received: true });
    assert.equal((await processed('evt_valid')).error, null);
    const users = await t.http
      .get(`/api/directories?itemsPerPage=10`)
      .set(bearer(platformToken))
      .set('Guildhall-Organization', organizationId)
      .expect(200);
    assert.equal(users.body.data[0].userCount, 1);
  });

  it('when the signature is wrong, missing, malformed or over other bytes, then 401 and nothing is recorded', async () => {
    const body = userCreated('evt_forged', 'directory_user_forged');
    const cases: Array<[string | undefined, RegExp]> = [
      [signWebhook('whsec_someone_else_0000', body, now()), /does not match/],
      [signWebhook(SECRET, `${body} `, now()), /does not match/],
      [undefined, /header is missing/],
      ['v1=abcdef', /not of the form/],
      [`t=${now()}, v1=zz`, /does not match/],
      [`t=${now()}, v1=${'0'.repeat(64)}`, /does not match/],
    ];
    for (const [signature, detail] of cases) {
      const problem = expectProblem(await deliver(body, signature), 401, 'unauthenticated');
      assert.match(problem.detail, detail);
    }
    assert.equal(await eventRow('evt_forged'), undefined);
  });

  it('when the timestamp is more than 5 minutes old or ahead, then 401; inside the window, accepted', async () => {
    const stale = expectProblem(
      await signed(userCreated('evt_stale', 'directory_user_stale'), now() - 5 * 60_000 - 1),
      401,
      'unauthenticated',
    );
    assert.match(stale.detail, /older than 5 minutes/);
    const future = expectProblem(
      await signed(userCreated('evt_future', 'directory_user_future'), now() + 5 * 60_000 + 1),
      401,
      'unauthenticated',
    );
    assert.match(future.detail, /in the future/);
    assert.equal(await eventRow('evt_stale'), undefined);
    await signed(userCreated('evt_late_ok', 'directory_user_late'), now() - 4 * 60_000).expect(200);
    await signed(userCreated('evt_early_ok', 'directory_user_early'), now() + 60_000).expect(200);
    await processed('evt_late_ok');
    await processed('evt_early_ok');
  });

  it('when an event id is delivered again, then it is acknowledged and processed once', async () => {
    const body = userCreated('evt_replayed', 'directory_user_replayed');
    await signed(body).expect(200, { received: true });
    await processed('evt_replayed');
    await signed(body, now() + 1000).expect(200, { received: true });
    // a replay with another payload under the same id changes nothing either
    await signed(userCreated('evt_replayed', 'directory_user_other')).expect(200, { received: true });
    await new Promise((resolve) => setTimeout(resolve, 1500)); // a second job, had one been queued, would have run
    const provisioned = await AuditEntry.findAll({ where: { action: 'directory.user_provisioned' } });
    const userNames = provisioned.map((a) => (a.after as { userName: string }).userName);
    assert.equal(userNames.filter((n) => n === 'directory_user_replayed@webhook.test').length, 1);
    assert.ok(!userNames.includes('directory_user_other@webhook.test'));
    const [rows] = await t.db.sequelize.query(
      "SELECT count(*)::int AS n FROM idp_webhook_events WHERE id = 'evt_replayed'",
    );
    assert.equal((rows as Array<{ n: number }>)[0]!.n, 1);
  });

  it('when a signed body is not JSON or lacks id, event or data, then 400 problem+json (unsigned: 401 first)', async () => {
    expectProblem(await deliver('{"id":', 't=1, v1=00'), 401, 'unauthenticated');
    expectProblem(await signed('{"id":'), 400, 'malformed_body');
    const missing = expectProblem(await signed(JSON.stringify({ data: {} })), 400, 'validation_failed');
    assert.deepEqual(missing.errors.map((e: { field: string }) => e.field).sort(), ['event', 'id']);
    // held to the rules of every JSON body, as on /api
    const notObject = expectProblem(await signed('[1,2]'), 400, 'malformed_body');
    assert.equal(notObject.detail, 'The request body must be a JSON object');
    const deep = `{"id":"evt_deep","event":"dsync.user.created","data":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    const tooDeep = expectProblem(await signed(deep), 400, 'validation_failed'); // was a 500 (the stack, at pg)
    assert.match(tooDeep.errors[0].message, /nests deeper than 32 levels/);
    const huge = expectProblem(
      await signed('{"id":"evt_huge","event":"dsync.user.created","data":{"n":1e400}}'),
      400,
      'validation_failed',
    );
    assert.equal(huge.errors[0].field, 'data.n');
    const notUtf8 = Buffer.concat([
      Buffer.from('{"id":"evt_bytes","event":"dsync.user.created","data":{"x":"'),
      Buffer.from([0xff]),
      Buffer.from('"}}'),
    ]);
    const at = now();
    const mac = createHmac('sha256', SECRET).update(`${at}.`).update(notUtf8).digest('hex');
    const bytes = await t.http
      .post('/webhooks/idp')
      .set('Content-Type', 'application/json')
      .set('WorkOS-Signature', `t=${at}, v1=${mac}`)
      .serialize((body) => body)
      .send(notUtf8);
    assert.equal(expectProblem(bytes, 400, 'malformed_body').detail, 'The request body is not valid UTF-8');
    // data is required, as the contract says (it was accepted, then the job found no directory named)
    const noData = expectProblem(
      await signed(JSON.stringify({ id: 'evt_no_data', event: 'dsync.user.created' })),
      400,
      'validation_failed',
    );
    assert.deepEqual(
      noData.errors.map((e: { field: string }) => e.field),
      ['data'],
    );
    assert.equal(
      await t.db.sequelize.query("SELECT 1 FROM idp_webhook_events WHERE id = 'evt_no_data'", { plain: true }),
      null,
      'nothing recorded',
    );
  });

  it('when the event kind is unknown, then it is acknowledged, logged and marked processed', async () => {
    const body = JSON.stringify({ id: 'evt_unknown', event: 'user.created', data: { id: 'user_1' } });
    await signed(body).expect(200, { received: true });
    const row = await processed('evt_unknown');
    assert.ok(row.processed_at);
    assert.equal(row.error, null);
  });
});
