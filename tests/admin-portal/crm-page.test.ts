// Platform Settings > CRM in a real browser, against the HubSpot stand-in: an organization connected by
// the Client Portal's OAuth flow is listed with its portal, hub id and figures (one never connected is
// not); choosing it shows its status, the mapping checked against HubSpot (invalid with HubSpot's error,
// then valid once the properties exist) and its runs; a record HubSpot refuses shows as an error with
// its fields, and Retry (once the cause is gone) sends it and the error goes away. The page's routes
// answer only a signed-in platform admin, and an unknown organization is a 404.
// test-runner: timeout 300 s (pages rendered in Chromium: minutes on a busy 2-core machine)
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { totpCode } from '../../src/modules/auth/mfa.ts';
import type { Organization } from '../../src/modules/organizations/organization.model.ts';
import { bearer, buildOrganization, buildUser, PASSWORD, tokenFor } from '../factories/index.ts';
import { buildAdmin, mfaSecretOf } from '../factories/mfa.ts';
import { buildMember } from '../factories/records.ts';
import { prepareAdminBundle } from '../setup/admin-bundle.ts';
import { acquireBrowser, offlineOnly, releaseBrowser } from '../setup/browser.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { type HubSpotStandIn, hubSpotEnv, startHubSpotStandIn } from '../support/hubspot-stand-in.ts';

// screenshots to look at the page (PORTAL_SCREENSHOTS names another folder)
const SHOTS = process.env.PORTAL_SCREENSHOTS ?? tmpdir();

describe('Admin Portal CRM page in a browser', { timeout: 300_000 }, () => {
  let t: TestApp;
  let hub: HubSpotStandIn;
  let server: Server;
  let base: string;
  let browser: Browser;
  let page: Page;
  let org: Organization;
  let idle: Organization;
  let clientAdmin: Awaited<ReturnType<typeof buildUser>>;
  let clientToken: string;
  let errorId: string;
  let memberId: string;
  /** Requests the browser made to the CRM page's routes. */
  let crmRequests = 0;

  const shot = async (name: string, height = 900) => {
    await page.setViewportSize({ width: 1600, height });
    await page.screenshot({ path: path.join(SHOTS, `crm-portal-${name}.png`), fullPage: true });
    await page.setViewportSize({ width: 1600, height: 900 });
  };
  async function waitFor(what: string, condition: () => Promise<boolean> | boolean, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const errorCount = async (type: string) =>
    (
      (await t.db.sequelize.query(
        'SELECT count(*)::int AS n FROM crm_sync_errors WHERE organization_id = :id AND type = :type',
        { plain: true, replacements: { id: org.id, type } },
      )) as { n: number }
    ).n;
  /** The Client Portal's "Connect HubSpot", HubSpot's consent (skipped by the stand-in) and the return. */
  async function connect(token: string) {
    const started = await t.http.post('/api/crm/connection').set(bearer(token)).expect(200);
    const consent = await fetch(new URL(started.body.authorizeUrl), { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') as string);
    const landed = await t.http.get(`${back.pathname}${back.search}`).expect(302);
    assert.equal(landed.headers.location, '/auth/crm/result?result=connected');
  }
  /** The page's own route, from the signed-in browser. */
  const fromPage = (url: string) =>
    page.evaluate(async (u) => {
      const res = await fetch(u, { credentials: 'same-origin', redirect: 'manual' });
      return { status: res.status, type: res.type, body: await res.text() };
    }, url);
  const rowText = async (selector: string) =>
    ((await page.locator(selector).first().textContent()) ?? '').replace(/\s+/g, ' ');

  before(async () => {
    hub = await startHubSpotStandIn({ budget: 1000 });
    t = await startTestApp({
      env: {
        ...hubSpotEnv(hub),
        CRM_BURST_LIMIT: '1000',
      },
      workers: true,
    });
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { admin } = await buildAdmin(t, { firstName: 'Cora', lastName: 'Crm' });
    org = await buildOrganization({ name: 'Harbor Guild' });
    idle = await buildOrganization({ name: 'Quarry Guild' });
    clientAdmin = await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: org.id });
    clientToken = await tokenFor(t, clientAdmin);
    for (const n of [1, 2]) await buildMember(org.id, { email: `early${n}@members.test`, firstName: `Early${n}` });
    await connect(clientToken);
    await waitFor('the first sync', () => hub.contacts.size === 2);
    // the guildhall_* properties do not exist yet in HubSpot: each is a mapping error
    await waitFor('the mapping errors', async () => (await errorCount('property_mapping')) === 5);

    assert.equal((await fetch(`${base}/admin/login`)).status, 200); // loads the portal
    await prepareAdminBundle(base);
    browser = await acquireBrowser();
    const context = await browser.newContext({ viewport: { width: 1600, height: 900 } });
    await context.route(offlineOnly, (route) => route.abort());
    page = await context.newPage();
    page.setDefaultTimeout(60_000);
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/admin/crm/')) crmRequests += 1;
    });
    await page.goto(`${base}/admin/login`);
    await page.fill('input[name=email]', admin.email);
    await page.fill('input[name=password]', PASSWORD);
    await page.fill('input[name=otp]', totpCode(mfaSecretOf(admin)!, t.clock.now()));
    await page.click('button[type=submit]');
    await page.waitForURL(`${base}/admin`);
  });
  after(async () => {
    await releaseBrowser();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
    await hub?.close();
  });

  it('when the admin opens Platform Settings > CRM, then the connected organization is listed with its figures', async () => {
    await page.goto(`${base}/admin`);
    await page.getByRole('link', { name: 'CRM', exact: true }).click();
    await page.waitForURL(`${base}/admin/pages/crm`);
    const row = `[data-testid=crm-connection-${org.id}]`;
    await page.waitForSelector(row);
    const text = await rowText(row);
    assert.match(text, /^Harbor Guild/);
    assert.match(text, /connected/);
    assert.ok(text.includes(hub.hubDomain), text);
    assert.ok(text.includes(String(hub.hubId)), text);
    // two contacts synced, none failed, today's calls as the stand-in counted them, of 250,000
    assert.doesNotMatch(text, /never/, 'it has synced');
    assert.match(text, new RegExp(`2\\s*0\\s*${hub.crmCalls().toLocaleString('en-US')} / 250,000$`));
    assert.equal(await page.locator(`[data-testid=crm-connection-${idle.id}]`).count(), 0, 'never connected');
    await shot('list');
  });

  it('when it is chosen, then its status, the mapping (invalid, with HubSpot’s error) and its first run show', async () => {
    await page.click(`[data-testid=crm-connection-${org.id}] [data-testid=crm-select]`);
    await page.waitForSelector('[data-testid=crm-detail]');
    assert.ok(page.url().endsWith(`/admin/pages/crm?organization=${org.id}`), 'the choice is in the URL');
    // loaded once, then the page waits (no request loop: each mapping check is a call to HubSpot)
    const requests = crmRequests;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(crmRequests, requests);
    assert.ok(requests <= 2, `${requests} requests`);
    assert.equal(await page.textContent('[data-testid=crm-detail-name]'), 'Harbor Guildconnected');
    assert.equal(await page.textContent('[data-testid=crm-synced]'), '2');
    assert.equal(await page.textContent('[data-testid=crm-failed]'), '0');
    const tier = await rowText('[data-testid=crm-mapping-guildhall_membership_tier]');
    assert.match(tier, /tier.*guildhall_membership_tier.*invalid.*PROPERTY_DOESNT_EXIST/);
    assert.match(await rowText('[data-testid=crm-mapping-email]'), /email.*email.*valid/);
    // the five mapping errors, each with its property
    assert.equal(await page.locator('[data-testid=crm-errors] tbody tr').count(), 5);
    assert.match(await rowText('[data-testid=crm-errors] tbody tr'), /Mapping.*PROPERTY_DOESNT_EXIST.*guildhall_/);
    // the first run: completed, the two members sent
    const run = await rowText('[data-testid=crm-run]');
    assert.match(run, /^completed\s*2\s*0\s*\d+/);
    await shot('detail-mapping-invalid', 2700);
    // opened again from its address, the same organization is chosen
    await page.reload();
    await page.waitForSelector('[data-testid=crm-detail]');
    assert.equal(await page.textContent('[data-testid=crm-synced]'), '2');
  });

  it('when the missing properties are created, then Refresh shows the mapping valid and no mapping errors', async () => {
    await t.http.post('/api/crm/properties').set(bearer(clientToken)).expect(200);
    await page.click('[data-testid=crm-refresh]');
    await page.waitForSelector('[data-testid=crm-no-errors]');
    assert.match(
      await rowText('[data-testid=crm-mapping-guildhall_membership_tier]'),
      /guildhall_membership_tier\s*valid/,
    );
    assert.equal(await page.locator('[data-testid=crm-mapping] tbody tr', { hasText: 'invalid' }).count(), 0);
  });

  it('when HubSpot refuses a record, then its error shows with its fields; Retry after the cause is gone clears it', async () => {
    hub.rejectEmails.add('bounce@members.test');
    const created = await t.http
      .post('/api/members')
      .set(bearer(clientToken))
      .send({ firstName: 'Bo', lastName: 'Unce', email: 'bounce@members.test' })
      .expect(201);
    memberId = created.body.id;
    await waitFor('the error', async () => (await errorCount('contact_sync')) === 1);
    await page.click('[data-testid=crm-refresh]');
    const row = page.locator('[data-testid=crm-errors] tbody tr');
    await row.first().waitFor();
    assert.equal(await row.count(), 1);
    errorId = ((await row.first().getAttribute('data-testid')) ?? '').replace('crm-error-', '');
    const text = await rowText('[data-testid=crm-errors] tbody tr');
    assert.match(text, new RegExp(`Contact\\s*INVALID_EMAIL\\s*email\\s*${memberId.slice(0, 8)}…`));
    assert.equal(await page.getAttribute('[data-testid=crm-errors] tbody tr td[title]', 'title'), memberId);
    assert.equal(await page.textContent('[data-testid=crm-failed]'), '1');
    assert.ok(await page.isDisabled('[data-testid=crm-retry]'), 'nothing chosen, nothing to retry');
    await page.click(`[data-testid=crm-error-${errorId}] .adminjs_Checkbox a`);
    assert.equal(await page.textContent('[data-testid=crm-retry]'), 'Retry 1 selected');
    await shot('detail-error', 2200);

    hub.rejectEmails.clear();
    await page.click('[data-testid=crm-retry]');
    await page.locator('text=1 error queued for retry').first().waitFor();
    await page.waitForSelector('[data-testid=crm-no-errors]', { timeout: 40_000 });
    assert.ok(hub.contacts.has('bounce@members.test'), 'the record reached HubSpot');
    assert.equal(await errorCount('contact_sync'), 0);
    const [audit] = (await t.db.sequelize.query(
      `SELECT actor_id, after FROM audit_log WHERE action = 'crm.errors_retried'`,
    )) as [Array<{ actor_id: string; after: { errorIds: string[] } }>, unknown];
    assert.equal(audit.length, 1);
    assert.deepEqual(audit[0]!.after.errorIds, [errorId]);
    // the runs list the retry's run too
    await page.click('[data-testid=crm-refresh]');
    await waitFor('the runs', async () => (await page.locator('[data-testid=crm-run]').count()) >= 3);
    await shot('detail-retried', 2400);
  });

  it('when there are more errors than a page holds, then they show 20 at a time, paged without the rest', async () => {
    const emails = Array.from({ length: 21 }, (_, n) => `refused${n}@members.test`);
    for (const email of emails) {
      hub.rejectEmails.add(email);
      await buildMember(org.id, { email });
    }
    await t.http.post('/api/crm/sync').set(bearer(clientToken)).expect(202);
    await waitFor('the refused records', async () => (await errorCount('contact_sync')) === 21);
    await page.click('[data-testid=crm-refresh]');
    await page.locator('[data-testid=crm-errors-total]', { hasText: '21 errors' }).waitFor();
    const rows = page.locator('[data-testid=crm-errors] tbody tr');
    assert.equal(await rows.count(), 20);
    const requests = crmRequests;
    await page.locator('[data-testid=crm-detail] button', { hasText: /^2$/ }).click();
    await waitFor('page 2', async () => (await rows.count()) === 1);
    assert.equal(crmRequests, requests + 1, 'only the errors, not the mapping check again');
    await shot('errors-page-2', 1300);
    hub.rejectEmails.clear();
  });

  it('when HubSpot refuses the refresh token, then the list and the detail say it needs re-authorization', async () => {
    hub.revokeAllRefreshTokens();
    hub.expireAccessTokens();
    t.clock.advance(40 * 60_000);
    clientToken = await tokenFor(t, clientAdmin); // issued at the moved clock
    await t.http
      .post('/api/members')
      .set(bearer(clientToken))
      .send({ firstName: 'Wai', lastName: 'Ting', email: 'waiting@members.test' })
      .expect(201);
    await waitFor('the auth error', async () => (await errorCount('auth')) === 1);
    await page.reload();
    await page.waitForSelector('[data-testid=crm-detail]');
    assert.match(await rowText(`[data-testid=crm-connection-${org.id}]`), /needs re-authorization/);
    assert.equal(await page.textContent('[data-testid=crm-detail-name]'), 'Harbor Guildneeds re-authorization');
    await page.getByText('HubSpot refused this portal’s token').waitFor();
    assert.match(await rowText('[data-testid=crm-errors] tbody tr'), /Authorization\s*invalid_grant/);
    // not connected: the mapping is the last verdict HubSpot gave, without calling it
    assert.match(await rowText('[data-testid=crm-mapping-guildhall_membership_tier]'), /valid/);
    await shot('needs-reauthorization', 1300);
  });

  it('when an organization that never connected HubSpot is opened, then its mapping says not checked, not invalid', async () => {
    await page.goto(`${base}/admin/pages/crm?organization=${idle.id}`);
    await page.locator('[data-testid=crm-mapping] tbody tr').first().waitFor();
    await shot('mapping-not-checked', 2700);
    const rows = ((await page.locator('[data-testid=crm-mapping] tbody').textContent()) ?? '').replace(/\s+/g, ' ');
    assert.match(rows, /email.*email.*not checked/);
    assert.doesNotMatch(rows, /invalid/);
    // named, with the reason once above the table
    assert.equal((await page.locator('[data-testid=crm-detail-name]').textContent())?.trim(), 'Quarry Guild');
    await page.locator('text=Not checked: the organization is not connected to HubSpot').waitFor();
    // the page's route says so (the API keeps the contract's two words: invalid, with the reason)
    const detail = JSON.parse((await fromPage(`${base}/admin/crm/${idle.id}`)).body) as {
      mapping: Array<{ status: string }>;
    };
    assert.ok(detail.mapping.length > 0 && detail.mapping.every((m) => m.status === 'not_checked'));
  });

  it('the page’s routes answer only a signed-in platform admin; an unknown organization is a 404', async () => {
    const unknown = await fromPage(`${base}/admin/crm/${randomUUID()}`);
    assert.equal(unknown.status, 404);
    assert.equal(JSON.parse(unknown.body).code, 'not_found');
    const outside = await fetch(`${base}/admin/crm/${org.id}`, { redirect: 'manual' });
    assert.equal(outside.status, 302, 'to the login');
    assert.match(outside.headers.get('location') ?? '', /\/admin\/login$/);
    assert.doesNotMatch(await outside.text(), /Harbor Guild|hs-access/);
    const [waiting] = (await t.db.sequelize.query(
      `SELECT id FROM crm_sync_errors WHERE organization_id = :id AND type = 'contact_sync' LIMIT 1`,
      { replacements: { id: org.id } },
    )) as [Array<{ id: string }>, unknown];
    const retryOutside = await fetch(`${base}/admin/crm/${org.id}/retry`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ errorIds: [waiting[0]!.id] }),
      redirect: 'manual',
    });
    assert.equal(retryOutside.status, 302, 'to the login');
    const [retries] = (await t.db.sequelize.query(
      `SELECT count(*)::int AS n FROM audit_log WHERE action = 'crm.errors_retried'`,
    )) as [Array<{ n: number }>, unknown];
    assert.equal(retries[0]!.n, 1, 'only the signed-in Retry');
    assert.equal(await errorCount('contact_sync'), 21);
  });
});
