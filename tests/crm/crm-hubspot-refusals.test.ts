// When HubSpot does not help: a call it never answers fails after HUBSPOT_TIMEOUT_MS (it held the sync
// worker, every organization's, until the job expired); a diagnostic that asks HubSpot answers its
// refusals in our terms (a refused or under-scoped token: 409 crm_not_connected and the connection
// marked; HubSpot's 429: ours with Retry-After; an outage or a timeout: 503), never a 500 or a
// "validation failed"; a property mapping that would write wrong data is refused; the result page
// reads only its own outcomes; the OAuth state is bound to its admin; tokens of a connection that
// was not made are revoked.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, buildOrganization, buildUser, mfaVerifiedTokenFor, tokenFor } from '../factories/index.ts';
import { User } from '../../src/modules/users/user.model.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { type HubSpotStandIn, hubSpotEnv, startHubSpotStandIn } from '../support/hubspot-stand-in.ts';

const TIMEOUT_MS = 1_000;

describe('CRM (HubSpot): refusals, timeouts and mappings that would write wrong data', () => {
  let t: TestApp;
  let hub: HubSpotStandIn;
  let platformToken: string;
  let adminToken: string;
  let organizationId: string;

  const mapping = () =>
    t.http.get(`/api/admin/integrations/crm/${organizationId}/property-mapping`).set(bearer(platformToken));
  const connected = async () =>
    (await t.http.get(`/api/admin/integrations/crm/${organizationId}/status`).set(bearer(platformToken)).expect(200))
      .body.connected as boolean;
  /** The admin's button and HubSpot's consent; answers where the browser lands. */
  async function consentAs(token: string): Promise<string> {
    const started = await t.http.post('/api/crm/connection').set(bearer(token)).expect(200);
    const consent = await fetch(started.body.authorizeUrl, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') as string);
    return (await t.http.get(`${back.pathname}${back.search}`).expect(302)).headers.location as string;
  }
  const connect = async () => assert.equal(await consentAs(adminToken), '/auth/crm/result?result=connected');

  before(async () => {
    hub = await startHubSpotStandIn({ budget: 1000 });
    t = await startTestApp({
      env: {
        ...hubSpotEnv(hub),
        HUBSPOT_TIMEOUT_MS: String(TIMEOUT_MS),
        CRM_BURST_LIMIT: '1000',
      },
    });
    organizationId = (await buildOrganization()).id;
    platformToken = await mfaVerifiedTokenFor(t, await buildUser({ role: 'ROLE_PLATFORM_ADMIN' }));
    adminToken = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
    await connect();
  });
  after(async () => {
    await t?.close();
    await hub?.close();
  });

  it('when HubSpot never answers a diagnostic call, then it fails after HUBSPOT_TIMEOUT_MS with 503', async () => {
    const held = hub.holdNextPropertyRead();
    const started = Date.now();
    const res = await mapping();
    held.release();
    const problem = expectProblem(res, 503, 'service_unavailable');
    assert.match(problem.detail, /did not answer within 1000 ms/);
    assert.ok(Date.now() - started < 10 * TIMEOUT_MS, `answered after ${Date.now() - started} ms`);
    assert.equal(await connected(), true, 'a timeout is not a refused token');
  });

  it('when HubSpot answers 429, then the diagnostic answers 429 with its Retry-After', async () => {
    hub.stormFor(1, 7);
    const res = await mapping();
    expectProblem(res, 429, 'rate_limited');
    assert.equal(res.headers['retry-after'], '7');
  });

  it('when a property mapping sends a property two values or overwrites the email key, then it is 400 naming the entry', async () => {
    const patch = (propertyMapping: object[]) =>
      t.http.patch('/api/crm/connection').set(bearer(adminToken)).send({ propertyMapping });
    const twice = expectProblem(
      await patch([
        { service_field: 'lastName', crm_property: 'firstname' },
        { service_field: 'tier', crm_property: 'FirstName' },
      ]),
      400,
      'validation_failed',
    );
    assert.deepEqual(
      twice.errors.map((e: { field: string }) => e.field),
      ['propertyMapping.1.crm_property'],
    );
    const key = expectProblem(
      await patch([{ service_field: 'firstName', crm_property: 'email' }]),
      400,
      'validation_failed',
    );
    assert.deepEqual(
      key.errors.map((e: { field: string }) => e.field),
      ['propertyMapping.0.crm_property'],
    );
    const kept = await t.http.get('/api/crm/connection').set(bearer(adminToken)).expect(200);
    assert.ok(!JSON.stringify(kept.body).includes('FirstName'), 'nothing of a refused mapping was stored');
    // deletePolicy mark (the default) writes the mark to the status field's property: one is needed
    const unmarked = expectProblem(
      await patch([
        { service_field: 'email', crm_property: 'email' },
        { service_field: 'id', crm_property: 'guildhall_member_id' },
      ]),
      400,
      'validation_failed',
    );
    assert.deepEqual(
      unmarked.errors.map((e: { field: string }) => e.field),
      ['propertyMapping'],
    );
    assert.match(unmarked.errors[0].message, /deletePolicy mark/);
    await patch([
      { service_field: 'email', crm_property: 'email' },
      { service_field: 'id', crm_property: 'guildhall_member_id' },
      { service_field: 'status', crm_property: 'guildhall_membership_status' },
    ]).expect(200);
  });

  it('when the result page is asked for a name every object has, then it shows the failed outcome (not a 500)', async () => {
    for (const result of ['toString', '__proto__', 'constructor']) {
      const page = await t.http.get(`/auth/crm/result?result=${result}`).expect(200);
      assert.match(page.text, /not connected|failed|could not/i, result);
    }
  });

  it('when HubSpot sends the browser back with an error, then denied; with neither code nor error, failed; the state is spent either way', async () => {
    const back = async (extra: string) => {
      const started = await t.http.post('/api/crm/connection').set(bearer(adminToken)).expect(200);
      const state = new URL(started.body.authorizeUrl).searchParams.get('state')!;
      const landed = await t.http.get(`/auth/callback/crm?state=${encodeURIComponent(state)}${extra}`).expect(302);
      const again = await t.http.get(`/auth/callback/crm?state=${encodeURIComponent(state)}&code=x`).expect(302);
      assert.equal(again.headers.location, '/auth/crm/result?result=expired', 'single-use');
      return landed.headers.location;
    };
    assert.equal(await back('&error=access_denied'), '/auth/crm/result?result=denied');
    assert.equal(await back(''), '/auth/crm/result?result=failed');
  });

  it('when the admin who started a connection is suspended before HubSpot sends them back, then nothing is connected', async () => {
    const other = await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId });
    const started = await t.http
      .post('/api/crm/connection')
      .set(bearer(await tokenFor(t, other)))
      .expect(200);
    await User.update({ status: 'suspended' }, { where: { id: other.id } });
    const exchanges = hub.tokenRequests.length;
    const consent = await fetch(started.body.authorizeUrl, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') as string);
    const landed = await t.http.get(`${back.pathname}${back.search}`).expect(302);
    assert.equal(landed.headers.location, '/auth/crm/result?result=expired');
    assert.equal(hub.tokenRequests.length, exchanges, 'the code was never exchanged');
  });

  it('when another organization connects a portal already connected, then it is taken and the tokens issued are revoked', async () => {
    const otherOrganization = (await buildOrganization()).id;
    const otherAdmin = await tokenFor(
      t,
      await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: otherOrganization }),
    );
    const revoked = hub.revokedRefreshTokens.length;
    assert.equal(await consentAs(otherAdmin), '/auth/crm/result?result=taken');
    assert.equal(hub.revokedRefreshTokens.length, revoked + 1);
  });

  it('when a field is mapped to a HubSpot property of a type it cannot fill, then the mapping check says so', async () => {
    await t.http.post('/api/crm/properties').set(bearer(adminToken)).expect(200);
    await t.http
      .patch('/api/crm/connection')
      .set(bearer(adminToken))
      .send({
        propertyMapping: [
          { service_field: 'email', crm_property: 'email' },
          { service_field: 'firstName', crm_property: 'guildhall_join_date' },
          { service_field: 'joinedAt', crm_property: 'guildhall_renewal_date' },
          { service_field: 'status', crm_property: 'guildhall_membership_status' },
        ],
      })
      .expect(200);
    const checked = (await mapping().expect(200)).body.contact_properties;
    assert.deepEqual(
      checked.map((p: { crm_property: string; status: string }) => [p.crm_property, p.status]),
      [
        ['email', 'valid'],
        ['guildhall_join_date', 'invalid'],
        ['guildhall_renewal_date', 'valid'],
        ['guildhall_membership_status', 'valid'],
      ],
    );
    assert.match(checked[1].error, /^TYPE_MISMATCH: .*date; firstName is not a date/);
    await t.http.patch('/api/crm/connection').set(bearer(adminToken)).send({ propertyMapping: [] }).expect(200);
  });

  it('when HubSpot refuses the token at a diagnostic, then 409 crm_not_connected and the connection is marked for reconnection', async () => {
    hub.expireAccessTokens();
    expectProblem(await mapping(), 409, 'crm_not_connected');
    assert.equal(await connected(), false);
    const own = await t.http.get('/api/crm/connection').set(bearer(adminToken)).expect(200);
    assert.equal(own.body.status, 'needs_reauthorization');
  });

  it('when an organization without HubSpot sends a wrong mapping, then 400 names the entry first; a right one is 409 crm_not_connected', async () => {
    const idle = (await buildOrganization()).id;
    const idleAdmin = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: idle }));
    const patch = (propertyMapping: object[]) =>
      t.http.patch('/api/crm/connection').set(bearer(idleAdmin)).send({ propertyMapping });
    const wrong = expectProblem(
      await patch([{ service_field: 'firstName', crm_property: 'email' }]),
      400,
      'validation_failed',
    );
    assert.deepEqual(
      wrong.errors.map((e: { field: string }) => e.field),
      ['propertyMapping.0.crm_property'],
    );
    expectProblem(await patch([{ service_field: 'firstName', crm_property: 'firstname' }]), 409, 'crm_not_connected');
  });
});
