// The CRM integration end to end, through the real @hubspot/api-client against a HubSpot stand-in:
// connecting by OAuth (single-use state, sealed tokens, hub_id as a string), the first full sync,
// member changes, batches of 100, records refused inside a batch and batches refused whole (split),
// a 429 storm mid-run (partial, then complete, nothing twice), mapping validation and "create missing
// properties", errors and retry by id, refresh ahead of expiry, a revoked refresh token, disconnect
// (and reconnecting to another portal), and who may read the diagnostics.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, buildOrganization, buildUser, mfaVerifiedTokenFor, tokenFor } from '../factories/index.ts';
import { buildMember } from '../factories/records.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { type HubSpotStandIn, hubSpotEnv, startHubSpotStandIn } from '../support/hubspot-stand-in.ts';

describe('CRM (HubSpot): connect, sync, diagnostics', () => {
  let t: TestApp;
  let hub: HubSpotStandIn;
  let platformToken: string;
  let adminToken: string;
  let organizationId: string;
  let platformAdmin: Awaited<ReturnType<typeof buildUser>>;
  let clientAdmin: Awaited<ReturnType<typeof buildUser>>;
  /** Tokens issued at the app clock's current time (tests move it past token lifetimes). */
  async function signIn() {
    platformToken = await mfaVerifiedTokenFor(t, platformAdmin);
    adminToken = await tokenFor(t, clientAdmin);
  }

  const status = async () =>
    (await t.http.get(`/api/admin/integrations/crm/${organizationId}/status`).set(bearer(platformToken)).expect(200))
      .body;
  const errorList = async (query = '') =>
    (
      await t.http
        .get(`/api/admin/integrations/crm/${organizationId}/errors${query}`)
        .set(bearer(platformToken))
        .expect(200)
    ).body;
  const queued = async () => {
    const [rows] = await t.db.sequelize.query(
      'SELECT count(*)::int AS n FROM crm_sync_queue WHERE organization_id = $1',
      {
        bind: [organizationId],
      },
    );
    return (rows as Array<{ n: number }>)[0]!.n;
  };
  async function waitFor(what: string, condition: () => Promise<boolean> | boolean, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  /** The Client Portal's button, HubSpot's consent (skipped by the stand-in) and the browser's return. */
  async function connect(token: string): Promise<string> {
    const started = await t.http.post('/api/crm/connection').set(bearer(token)).expect(200);
    const authorize = new URL(started.body.authorizeUrl);
    assert.equal(
      authorize.searchParams.get('scope'),
      'crm.objects.contacts.read crm.objects.contacts.write crm.objects.companies.read crm.objects.companies.write timeline',
    );
    const consent = await fetch(authorize, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') as string);
    assert.equal(back.pathname, '/auth/callback/crm');
    const landed = await t.http.get(`${back.pathname}${back.search}`).expect(302);
    return `${back.pathname}${back.search} -> ${landed.headers.location}`;
  }
  const createMember = (email: string, extra: Record<string, unknown> = {}) =>
    t.http
      .post('/api/members')
      .set(bearer(adminToken))
      .send({ firstName: 'Ada', lastName: 'Lovelace', email, ...extra })
      .expect(201);

  before(async () => {
    hub = await startHubSpotStandIn({ budget: 1000 });
    t = await startTestApp({
      env: {
        ...hubSpotEnv(hub),
        CRM_BURST_LIMIT: '1000',
      },
      workers: true,
    });
    platformAdmin = await buildUser({ role: 'ROLE_PLATFORM_ADMIN' });
    organizationId = (await buildOrganization()).id;
    clientAdmin = await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId });
    await signIn();
  });
  after(async () => {
    await t?.close();
    await hub?.close();
  });

  it('before connecting, the status says connected: false (not an error) and the mapping is unchecked', async () => {
    const before = await status();
    assert.equal(before.connected, false);
    assert.equal(before.hub_id, null);
    assert.deepEqual(before.sync_stats, {
      contacts_synced: 0,
      contacts_failed: 0,
      companies_synced: 0,
      engagements_synced: 0,
    });
    assert.deepEqual(before.rate_limit, { daily_limit: 250000, daily_used: 0, secondly_limit: 100 });
    const mine = await t.http.get('/api/crm/connection').set(bearer(adminToken)).expect(200);
    assert.equal(mine.body.status, 'not_connected');
    await t.http.post('/api/crm/sync').set(bearer(adminToken)).expect(409);
  });

  it('connecting by OAuth stores sealed tokens, reads the portal, and sends the members already there', async () => {
    for (const n of [1, 2, 3])
      await buildMember(organizationId, { email: `early${n}@members.test`, firstName: `Early${n}` });
    const trip = await connect(adminToken);
    assert.match(trip, /-> \/auth\/crm\/result\?result=connected$/);
    const page = await t.http.get('/auth/crm/result?result=connected').expect(200);
    assert.match(page.text, /HubSpot is connected/);

    const now = await status();
    assert.equal(now.connected, true);
    assert.equal(now.hub_id, String(hub.hubId));
    assert.equal(now.portal_name, hub.hubDomain);
    assert.deepEqual(now.scopes, ['contacts', 'companies', 'timeline']);
    assert.ok(Date.parse(now.token_expires_at) > Date.now() + 20 * 60_000);
    const [rows] = await t.db.sequelize.query('SELECT access_token_sealed, refresh_token_sealed FROM crm_connections');
    const sealed = JSON.stringify(rows);
    assert.doesNotMatch(sealed, /hs-access-|hs-refresh-/, 'tokens are sealed at rest');

    await waitFor('the first sync', () => hub.contacts.size === 3);
    assert.equal(hub.contacts.get('early2@members.test')?.properties.firstname, 'Early2');
    // the guildhall_* properties do not exist yet: left out, each reported once as a mapping error
    const mappingErrors = await errorList('?type=property_mapping');
    assert.equal(mappingErrors.total, 5);
    assert.ok(mappingErrors.errors.every((e: { crm_error: string }) => e.crm_error === 'PROPERTY_DOESNT_EXIST'));
    assert.ok(mappingErrors.errors.some((e: { property: string }) => e.property === 'guildhall_membership_status'));
  });

  it('the state in the authorize URL is single-use', async () => {
    const started = await t.http.post('/api/crm/connection').set(bearer(adminToken)).expect(200);
    const consent = await fetch(new URL(started.body.authorizeUrl), { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') as string);
    await t.http.get(`${back.pathname}${back.search}`).expect(302);
    const replay = await t.http.get(`${back.pathname}${back.search}`).expect(302);
    assert.equal(replay.headers.location, '/auth/crm/result?result=expired');
  });

  it('the mapping is validated against HubSpot, and "create missing properties" fixes it', async () => {
    const before = await t.http
      .get(`/api/admin/integrations/crm/${organizationId}/property-mapping`)
      .set(bearer(platformToken))
      .expect(200);
    const tier = before.body.contact_properties.find((p: { service_field: string }) => p.service_field === 'tier');
    assert.equal(tier.status, 'invalid');
    assert.match(tier.error, /PROPERTY_DOESNT_EXIST/);
    // a run reads HubSpot's properties before they are created and stores its verdict only afterwards:
    // that stale verdict must not bring back the errors the creation cleared
    await waitFor('the earlier runs', async () => (await queued()) === 0, 60_000);
    const staleRead = hub.holdNextPropertyRead();
    await t.http.post('/api/crm/sync').set(bearer(adminToken)).expect(202);
    await staleRead.arrived;
    const created = await t.http.post('/api/crm/properties').set(bearer(adminToken)).expect(200);
    assert.equal(created.body.created.length, 5);
    staleRead.release();
    await waitFor('the run with the stale read', async () => (await queued()) === 0, 60_000);
    assert.ok(hub.properties.has('guildhall_member_id'));
    const afterwards = await t.http
      .get(`/api/admin/integrations/crm/${organizationId}/property-mapping`)
      .set(bearer(platformToken))
      .expect(200);
    assert.ok(afterwards.body.contact_properties.every((p: { status: string }) => p.status === 'valid'));
    assert.equal((await errorList('?type=property_mapping')).total, 0);
  });

  it('created and updated members reach HubSpot with their membership properties', async () => {
    const created = await createMember('grace@members.test', {
      tier: 'premium',
      joinedAt: '2025-03-01',
      customFields: { employer: 'Navy' },
    });
    await waitFor(
      'the new contact',
      () => hub.contacts.get('grace@members.test')?.properties.guildhall_member_id === created.body.id,
    );
    const contact = hub.contacts.get('grace@members.test')!;
    assert.equal(contact.properties.guildhall_membership_tier, 'premium');
    assert.equal(contact.properties.guildhall_join_date, '2025-03-01');
    assert.equal(contact.properties.company, 'Navy');
    // the employer is a company, associated with the contact, created once however it is spelled
    await waitFor('the association', () => hub.associations.has(contact.id));
    assert.equal(hub.companies.get(hub.associations.get(contact.id) as string), 'Navy');
    await createMember('navy2@members.test', { customFields: { employer: '  navy ' } });
    await waitFor('the second contact', () => hub.contacts.has('navy2@members.test'));
    const second = hub.contacts.get('navy2@members.test')!;
    await waitFor('its association', () => hub.associations.get(second.id) === hub.associations.get(contact.id));
    assert.equal([...hub.companies.values()].filter((name) => name.trim().toLowerCase() === 'navy').length, 1);
    assert.equal((await status()).sync_stats.companies_synced, 1);
    await t.http
      .put(`/api/members/${created.body.id}`)
      .set(bearer(adminToken))
      .send({ firstName: 'Ada', lastName: 'Hopper', email: 'grace@members.test' })
      .expect(200);
    await waitFor('the update', () => hub.contacts.get('grace@members.test')?.properties.lastname === 'Hopper');
  });

  it('a record refused inside a batch becomes an error with its fields; retry by id clears it once its cause is gone', async () => {
    hub.rejectEmails.add('bounce@members.test');
    const member = await createMember('bounce@members.test');
    await waitFor('the error', async () => (await errorList('?type=contact_sync')).total === 1);
    const list = await errorList('?type=contact_sync&itemsPerPage=10');
    const [error] = list.errors;
    assert.equal(list.page, 1);
    assert.equal(error.type, 'contact_sync');
    assert.equal(error.crm_error, 'INVALID_EMAIL');
    assert.equal(error.property, 'email');
    assert.equal(error.record_id, member.body.id);
    assert.ok(Date.parse(error.timestamp) > 0);
    assert.equal(
      (await errorList(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).total,
      0,
    );
    // a date-time's colons may be sent as they are, as on every other date-time filter
    const raw = new Date(Date.now() - 3_600_000).toISOString();
    assert.equal(
      (await errorList(`?since=${raw}&until=${new Date(Date.now() + 60_000).toISOString()}`)).total,
      list.total,
    );

    hub.rejectEmails.clear();
    const retried = await t.http
      .post(`/api/admin/integrations/crm/${organizationId}/retry`)
      .set(bearer(platformToken))
      .send({ error_ids: [error.id, 'not-an-error'] })
      .expect(200);
    assert.deepEqual(retried.body, { queued: [error.id], unknown: ['not-an-error'] });
    await waitFor('the retried record', () => hub.contacts.has('bounce@members.test'));
    await waitFor('the error cleared', async () => (await errorList('?type=contact_sync')).total === 0);

    // the error of a member deleted since has nothing to resend: removed, and not "queued"
    hub.rejectEmails.add('gone@members.test');
    const gone = await createMember('gone@members.test');
    await waitFor('the error', async () => (await errorList('?type=contact_sync')).total === 1);
    const [stale] = (await errorList('?type=contact_sync')).errors;
    hub.rejectEmails.clear(); // the deletion's own send goes through and adds no error
    await t.http.delete(`/api/members/${gone.body.id}`).set(bearer(adminToken)).expect(204);
    const staleRetry = await t.http
      .post(`/api/admin/integrations/crm/${organizationId}/retry`)
      .set(bearer(platformToken))
      .send({ error_ids: [stale.id] })
      .expect(200);
    assert.deepEqual(staleRetry.body, { queued: [], unknown: [stale.id] });
    assert.equal((await errorList('?type=contact_sync')).total, 0);
  });

  it('sync now sends every member in batches of at most 100; a batch refused whole is split to the record at fault', async () => {
    for (let n = 0; n < 240; n++) await buildMember(organizationId, { email: `bulk${n}@members.test` });
    hub.poisonEmails.add('bulk7@members.test');
    hub.upsertBatchSizes.length = 0;
    const answer = await t.http.post('/api/crm/sync').set(bearer(adminToken)).expect(202);
    assert.ok(answer.body.queued >= 240);
    await waitFor('the resync', async () => (await queued()) === 0, 60_000);
    assert.ok(Math.max(...hub.upsertBatchSizes) <= 100);
    assert.ok(hub.upsertBatchSizes.includes(100));
    for (let n = 0; n < 240; n++) if (n !== 7) assert.ok(hub.contacts.has(`bulk${n}@members.test`), `bulk${n}`);
    assert.equal(hub.contacts.has('bulk7@members.test'), false);
    const refused = (await errorList('?type=contact_sync')).errors;
    assert.equal(refused.length, 1);
    assert.equal(refused[0].crm_error, 'INVALID_EMAIL');
    hub.poisonEmails.clear();
  });

  it('a 429 storm mid-run ends it partially; it resumes after Retry-After and sends nothing twice', async () => {
    for (let n = 0; n < 300; n++) await buildMember(organizationId, { email: `storm${n}@members.test` });
    const before = hub.rateLimited;
    hub.stormFor(3, 1, 2);
    await t.http.post('/api/crm/sync').set(bearer(adminToken)).expect(202);
    await waitFor('the resumed run', async () => (await queued()) === 0, 60_000);
    assert.equal(hub.rateLimited - before, 3);
    for (let n = 0; n < 300; n++)
      assert.equal(hub.contacts.get(`storm${n}@members.test`)?.writes, 1, `storm${n} written once`);
    const [runs] = await t.db.sequelize.query(`SELECT status FROM crm_sync_runs WHERE status = 'partial'`);
    assert.ok((runs as unknown[]).length >= 1);
  });

  it('the status figures equal what HubSpot counted', async () => {
    const now = await status();
    assert.equal(now.sync_stats.contacts_synced, hub.upsertedRecords);
    assert.equal(now.rate_limit.daily_used, hub.crmCalls());
    assert.ok(now.last_sync);
  });

  it('the token is refreshed ahead of its expiry, never after a 401', async () => {
    const refreshes = () => hub.tokenRequests.filter((r) => r.grantType === 'refresh_token').length;
    const before = refreshes();
    t.clock.advance(26 * 60_000);
    await signIn();
    const member = await createMember('ahead@members.test');
    await waitFor('the contact', () => hub.contacts.has('ahead@members.test'));
    assert.equal(refreshes(), before + 1);
    assert.equal((await errorList('?type=auth')).total, 0);
    assert.ok(member.body.id);
  });

  it('a revoked refresh token stops the sync, shows as 401, keeps the queue, and resumes after reconnecting', async () => {
    hub.revokeAllRefreshTokens();
    hub.expireAccessTokens();
    t.clock.advance(40 * 60_000);
    await signIn();
    await createMember('waiting@members.test');
    await waitFor('the auth error', async () => (await errorList('?type=auth')).total === 1);
    const [auth] = (await errorList('?type=auth')).errors;
    assert.equal(auth.http_status, 401);
    assert.equal(auth.crm_error, 'invalid_grant');
    assert.equal((await status()).connected, false);
    assert.equal(
      (await t.http.get('/api/crm/connection').set(bearer(adminToken)).expect(200)).body.status,
      'needs_reauthorization',
    );
    assert.equal(await queued(), 1);
    assert.equal(hub.contacts.has('waiting@members.test'), false);
    // the token error is the evidence of the broken connection: a retry cannot erase it
    expectProblem(
      await t.http
        .post(`/api/admin/integrations/crm/${organizationId}/retry`)
        .set(bearer(platformToken))
        .send({ error_ids: [auth.id] }),
      409,
      'crm_not_connected',
    );
    assert.equal((await errorList('?type=auth')).total, 1);

    await connect(adminToken);
    await waitFor('the waiting member', () => hub.contacts.has('waiting@members.test'), 60_000);
    assert.equal((await status()).connected, true);
    assert.equal((await errorList('?type=auth')).total, 0, 'reconnecting answers the token error');
  });

  it('platform admins only: a client admin gets 403, an unknown organization is 404', async () => {
    const paths = ['status', 'errors', 'property-mapping'];
    for (const path of paths) {
      await t.http.get(`/api/admin/integrations/crm/${organizationId}/${path}`).set(bearer(adminToken)).expect(403);
      await t.http
        .get(`/api/admin/integrations/crm/00000000-0000-4000-8000-000000000000/${path}`)
        .set(bearer(platformToken))
        .expect(404);
    }
    await t.http
      .post(`/api/admin/integrations/crm/${organizationId}/retry`)
      .set(bearer(adminToken))
      .send({ error_ids: ['x'] })
      .expect(403);
    // another organization's admin sees only their own (empty) connection
    const other = await buildOrganization();
    const otherAdmin = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: other.id }));
    assert.equal(
      (await t.http.get('/api/crm/connection').set(bearer(otherAdmin)).expect(200)).body.status,
      'not_connected',
    );
    const staff = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_USER', organizationId }));
    await t.http.post('/api/crm/connection').set(bearer(staff)).expect(403);
  });

  it("an organization may archive deleted members' contacts and point a field at another property", async () => {
    const changed = await t.http
      .patch('/api/crm/connection')
      .set(bearer(adminToken))
      .send({
        deletePolicy: 'archive',
        propertyMapping: [
          { service_field: 'email', crm_property: 'email' },
          { service_field: 'tier', crm_property: 'membership_level' },
        ],
      })
      .expect(200);
    assert.equal(changed.body.deletePolicy, 'archive');
    assert.equal(changed.body.propertyMapping.length, 2);
    const mapping = await t.http
      .get(`/api/admin/integrations/crm/${organizationId}/property-mapping`)
      .set(bearer(platformToken))
      .expect(200);
    assert.deepEqual(
      mapping.body.contact_properties.map((p: { crm_property: string; status: string }) => [p.crm_property, p.status]),
      [
        ['email', 'valid'],
        ['membership_level', 'invalid'],
      ],
    );
    hub.properties.add('membership_level');
    const member = await createMember('archived@members.test', { tier: 'premium' });
    await waitFor(
      'the contact',
      () => hub.contacts.get('archived@members.test')?.properties.membership_level === 'premium',
    );
    await t.http.delete(`/api/members/${member.body.id}`).set(bearer(adminToken)).expect(204);
    await waitFor('the archive', () => hub.contacts.get('archived@members.test')?.archived === true);
    // an archive HubSpot refuses is an error of that member and leaves the queue: the next ones still go
    const kept = await createMember('kept@members.test');
    await waitFor('the kept contact', () => hub.contacts.has('kept@members.test'));
    hub.refuseArchiveOf.add(hub.contacts.get('kept@members.test')!.id);
    await t.http.delete(`/api/members/${kept.body.id}`).set(bearer(adminToken)).expect(204);
    await createMember('after@members.test');
    await waitFor('the member after the refused archive', () => hub.contacts.has('after@members.test'));
    await waitFor('the archive error', async () =>
      (await errorList('?type=contact_sync')).errors.some(
        (e: { record_id: string; message: string }) => e.record_id === kept.body.id && /archive/.test(e.message),
      ),
    );
    assert.equal(hub.contacts.get('kept@members.test')?.archived, false);
    await t.http
      .patch('/api/crm/connection')
      .set(bearer(adminToken))
      .send({ deletePolicy: 'mark', propertyMapping: [] })
      .expect(200);
  });

  it('a deleted member marks the contact (the default) instead of deleting it; disconnecting revokes the token', async () => {
    const member = await createMember('leaving@members.test');
    await waitFor('the contact', () => hub.contacts.has('leaving@members.test'));
    await t.http.delete(`/api/members/${member.body.id}`).set(bearer(adminToken)).expect(204);
    await waitFor(
      'the mark',
      () => hub.contacts.get('leaving@members.test')?.properties.guildhall_membership_status === 'deleted',
    );
    assert.equal(hub.contacts.get('leaving@members.test')?.archived, false);

    await t.http.delete('/api/crm/connection').set(bearer(adminToken)).expect(204);
    assert.equal(hub.revokedRefreshTokens.length, 1);
    assert.equal((await status()).connected, false);
    await t.http.delete('/api/crm/connection').set(bearer(adminToken)).expect(409);

    // another portal: the ids the first one gave are forgotten, so its companies are created there
    const companiesCreated = () => hub.calls.get('POST /crm/v3/objects/companies/batch/create') ?? 0;
    const before = companiesCreated();
    hub.hubId = 5_550_001;
    await connect(adminToken);
    await waitFor('the companies created in the new portal', () => companiesCreated() > before);
    assert.equal((await status()).hub_id, '5550001');
  });
});
