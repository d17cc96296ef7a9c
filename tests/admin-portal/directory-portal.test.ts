// Platform Settings > Directory Sync in a real browser: a platform admin adds a SCIM directory for an
// organization and sees its token once, with the SCIM base URL; the token is nowhere in the portal
// afterwards (only its prefix); Rotate token shows a new one once and the old one stops working;
// Revoke token leaves the directory without a token, and SCIM refuses the last one.
// test-runner: timeout 300 s (pages rendered in Chromium: minutes on a busy 2-core machine)
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { totpCode } from '../../src/modules/auth/mfa.ts';
import { Directory } from '../../src/modules/directory/directory.model.ts';
import type { Organization } from '../../src/modules/organizations/organization.model.ts';
import { sha256 } from '../../src/shared/crypto.ts';
import { buildOrganization, PASSWORD } from '../factories/index.ts';
import { buildAdmin, mfaSecretOf } from '../factories/mfa.ts';
import { prepareAdminBundle } from '../setup/admin-bundle.ts';
import { acquireBrowser, offlineOnly, releaseBrowser } from '../setup/browser.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

// screenshots to look at the pages (PORTAL_SCREENSHOTS names another folder)
const SHOTS = process.env.PORTAL_SCREENSHOTS ?? tmpdir();
const TOKEN = /^scim_[A-Za-z0-9_-]{43}$/;

describe('Admin Portal Directory Sync in a browser', { timeout: 300_000 }, () => {
  let t: TestApp;
  let server: Server;
  let base: string;
  let browser: Browser;
  let page: Page;
  let org: Organization;
  let directoryId: string;
  let firstToken: string;
  let rotatedToken: string;

  // the portal scrolls inside its layout, so a full-page shot is only the viewport: a taller one when asked
  const shot = async (name: string, height = 900) => {
    await page.setViewportSize({ width: 1600, height });
    await page.screenshot({ path: path.join(SHOTS, `directory-portal-${name}.png`), fullPage: true });
    await page.setViewportSize({ width: 1600, height: 900 });
  };
  const auditCount = async (action: string) =>
    (
      (await t.db.sequelize.query(`SELECT count(*)::int AS n FROM audit_log WHERE action = :action`, {
        plain: true,
        replacements: { action },
      })) as { n: number }
    ).n;
  const showUrl = () => `${base}/admin/resources/directories/records/${directoryId}/show`;
  /** What the browser holds of the record page: its HTML and the portal API's JSON of the record. */
  const recordAsSent = async () => {
    const json = await page.evaluate(
      async (url) => (await fetch(url, { credentials: 'same-origin' })).text(),
      `${base}/admin/api/resources/directories/records/${directoryId}/show`,
    );
    return `${await page.content()}\n${json}`;
  };

  before(async () => {
    t = await startTestApp();
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { admin } = await buildAdmin(t, { firstName: 'Dora', lastName: 'Directory' });
    org = await buildOrganization({ name: 'Entra Guild', plan: 'enterprise' });
    await buildOrganization({ name: 'Okta Guild' });
    assert.equal((await fetch(`${base}/admin/login`)).status, 200); // loads the portal
    await prepareAdminBundle(base);
    browser = await acquireBrowser();
    const context = await browser.newContext({ viewport: { width: 1600, height: 900 } });
    await context.route(offlineOnly, (route) => route.abort());
    page = await context.newPage();
    page.setDefaultTimeout(60_000);
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
  });

  it('when the admin opens Platform Settings > Directory Sync, then it lists no directories and offers the form', async () => {
    await page.goto(`${base}/admin`);
    await page.getByRole('link', { name: 'Directory Sync' }).click();
    await page.waitForURL(`${base}/admin/pages/directory-sync`);
    await page.waitForSelector('[data-testid=no-directories]');
    await page.locator('[data-testid=add-directory]').waitFor();
    await shot('empty', 1200);
  });

  it('when the form is incomplete, then each field shows its message and nothing is added', async () => {
    await page.click('[data-testid=add-directory-submit]');
    await page.locator('[data-testid=error-organizationId]').waitFor();
    assert.equal(await page.textContent('[data-testid=error-name]'), 'is required');
    // a brokered directory without the identity service's id: refused by the service itself
    await page.fill('#organizationId', 'Entra');
    await page.getByRole('option', { name: 'Entra Guild' }).click();
    await page.fill('#name', 'Entra via the identity service');
    await page.check('#provider-identity_service');
    await page.click('[data-testid=add-directory-submit]');
    await page.locator('[data-testid=error-externalId]').waitFor();
    assert.match((await page.textContent('[data-testid=error-externalId]')) ?? '', /identity service's directory id/);
    assert.equal(await page.locator('[data-testid=error-name]').count(), 0);
    await page.locator('text=Some fields need attention: see the message under each.').first().waitFor();
    await shot('refused', 1300);
    assert.equal(await Directory.count(), 0);
  });

  it('when a SCIM directory is added, then its token and the SCIM base URL show once, and the token works', async () => {
    await page.check('#provider-scim');
    await page.fill('#name', 'Microsoft Entra ID');
    await page.click('[data-testid=add-directory-submit]');
    const token = page.locator('[data-testid=directory-token]');
    await token.waitFor();
    firstToken = (await token.textContent()) ?? '';
    assert.match(firstToken, TOKEN);
    assert.equal(await page.textContent('[data-testid=scim-url]'), `${t.config.baseUrl}/scim/v2`);
    await page.getByText('you will not see it again').waitFor();
    const directory = (await Directory.findOne({ where: { organizationId: org.id } }))!;
    directoryId = directory.id;
    assert.equal(directory.name, 'Microsoft Entra ID');
    assert.equal(directory.provider, 'scim');
    assert.equal(directory.sendWelcome, true);
    assert.equal(directory.hardDelete, false);
    assert.ok(await t.container.services.directories.verifyToken(firstToken), 'the token is accepted');
    assert.equal(await auditCount('directory.created'), 1);
    // the list beneath shows the directory by its organization's name and the token's prefix only
    const row = page.locator(`[data-testid=directory-${directoryId}]`);
    assert.match(
      ((await row.textContent()) ?? '').replace(/\s+/g, ' '),
      new RegExp(`Entra Guild.*Microsoft Entra ID.*SCIM.*active.*${firstToken.slice(0, 12)}….*00never`),
    );
    assert.ok(!page.url().includes(firstToken), 'not in the address');
    await shot('added', 1500);
  });

  it('when the page or the directory is opened again, then the token is not shown, only its prefix', async () => {
    await page.reload();
    await page.waitForSelector(`[data-testid=directory-${directoryId}]`);
    assert.equal(await page.locator('[data-testid=one-time-token]').count(), 0);
    assert.ok(!(await page.content()).includes(firstToken), 'the Directory Sync page, loaded again');
    await page.click(`[data-testid=directory-${directoryId}] [data-testid=directory-link]`);
    await page.waitForURL(showUrl());
    await page.locator('[data-testid=record-scim-url]').waitFor();
    assert.equal(await page.textContent('[data-testid=record-scim-url]'), `${t.config.baseUrl}/scim/v2`);
    assert.equal(await page.textContent('[data-testid=token-prefix]'), `${firstToken.slice(0, 12)}…`);
    await page.locator('[data-testid=group-roles]').getByText('Client Admin', { exact: true }).waitFor();
    await page.reload();
    await page.locator('[data-testid=record-scim-url]').waitFor();
    const sent = await recordAsSent();
    assert.ok(!sent.includes(firstToken), 'no token in the record page or its JSON');
    assert.ok(!sent.includes(sha256(firstToken)) && !sent.includes('tokenHash'), 'nor its hash');
    await shot('show', 1500);
  });

  it('when "Rotate token" is confirmed, then a new token shows once and the old one stops working', async () => {
    await page.click('[data-testid=action-rotateToken]');
    await page.getByText('Issue a new SCIM token?').waitFor();
    await shot('rotate-confirm');
    await page.click('[data-testid=confirm-action]');
    const token = page.locator('[data-testid=directory-token]');
    await token.waitFor();
    rotatedToken = (await token.textContent()) ?? '';
    assert.match(rotatedToken, TOKEN);
    assert.notEqual(rotatedToken, firstToken);
    await shot('rotated', 1100);
    assert.ok(await t.container.services.directories.verifyToken(rotatedToken), 'the new token is accepted');
    assert.equal(await t.container.services.directories.verifyToken(firstToken), null, 'the old one is refused');
    assert.equal(await auditCount('directory.token_rotated'), 1);
    assert.ok(!page.url().includes(rotatedToken), 'not in the address');
    await page.click('[data-testid=token-done]');
    await page.waitForURL(showUrl());
    await page.locator('[data-testid=token-prefix]').waitFor();
    assert.equal(await page.textContent('[data-testid=token-prefix]'), `${rotatedToken.slice(0, 12)}…`);
    assert.ok(!(await recordAsSent()).includes(rotatedToken), 'gone once closed');
  });

  it('when "Revoke token" is confirmed, then the directory shows "revoked" and SCIM refuses the token', async () => {
    await page.click('[data-testid=action-revokeToken]');
    await page.getByText('Revoke the SCIM token?').waitFor();
    await page.click('[data-testid=confirm-action]');
    await page.locator('text=The SCIM token of Microsoft Entra ID is revoked').first().waitFor();
    await page.waitForURL(showUrl());
    await page.locator('[data-testid=token-prefix]', { hasText: 'revoked' }).waitFor();
    assert.equal(await t.container.services.directories.verifyToken(rotatedToken), null);
    assert.equal(await auditCount('directory.token_revoked'), 1);
    assert.equal(await page.locator('[data-testid=action-revokeToken]').count(), 0, 'nothing left to revoke');
    await shot('revoked', 1500);
    await page.goto(`${base}/admin/pages/directory-sync`);
    const row = page.locator(`[data-testid=directory-${directoryId}]`);
    await row.getByText('revoked').waitFor();
    await shot('list-revoked');
    // the record page's breadcrumb leads to the resource's own list: the same columns, the token's state
    await page.goto(`${base}/admin/resources/directories`);
    const listed = page.locator('tbody tr', { hasText: 'Microsoft Entra ID' });
    await listed.getByText('Entra Guild').waitFor();
    assert.match(((await listed.textContent()) ?? '').replace(/\s+/g, ' '), /SCIM.*active.*revoked.*never/);
    await shot('resource-list');
  });
});
