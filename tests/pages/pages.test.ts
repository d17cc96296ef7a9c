// The pages the links Guildhall sends lead to, with the default settings: API-level checks of what
// is served, then the two flows in a real browser.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { OutboxMessage } from '../../src/modules/mail/outbox-message.model.ts';
import { bearer, buildOrganization, buildUser } from '../factories/index.ts';
import { buildAdmin } from '../factories/mfa.ts';
import { acquireBrowser, offlineOnly, releaseBrowser } from '../setup/browser.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('Pages for people: home, choosing a password, impersonation landing', { timeout: 240_000 }, () => {
  let t: TestApp;
  let server: Server;
  let base: string;
  let browser: Browser;

  before(async () => {
    t = await startTestApp({ env: { BASE_URL: 'http://localhost:1' } });
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await acquireBrowser();
  });
  after(async () => {
    await releaseBrowser();
    await new Promise((resolve) => server?.close(resolve));
    await t.close();
  });

  it('when / is opened, then an HTML page links to the portal, the docs, the contract and health, under a strict CSP', async () => {
    const res = await t.http.get('/').expect(200);
    assert.match(res.headers['content-type'], /^text\/html/);
    for (const href of ['/admin', '/api/docs', '/api/openapi.yaml', '/health', '/errors'])
      assert.ok(res.text.includes(`href="${href}"`), href);
    // the mode and the API environment apart, as the start-up line says them ("production" read as the mode)
    assert.match(
      res.text,
      /runs in <strong>test<\/strong> mode and serves the <strong>live API environment \(gh_live_ keys\)<\/strong>/,
    );
    assert.match(res.headers['content-security-policy'], /default-src 'none'; script-src 'self'/);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
  });

  it('when a portal page or its assets are asked for, then they are served; an unknown portal or asset is not', async () => {
    const reset = await t.http.get('/portal/member/reset-password').expect(200);
    assert.match(reset.text, /<label for="password">New password<\/label>/);
    assert.match(reset.text, /src="\/pages\/reset-password.js"/);
    await t.http
      .get('/pages/reset-password.js')
      .expect(200)
      .expect('Content-Type', /javascript/);
    await t.http
      .get('/pages/page.css')
      .expect(200)
      .expect('Content-Type', /text\/css/);
    assert.equal((await t.http.get('/portal/intruder/reset-password')).status, 404);
    assert.equal((await t.http.get('/pages/../config.ts')).status, 404);
    const portal = await t.http.get('/portal/client').expect(200);
    assert.match(portal.text, /CLIENT_PORTAL_URL/);
  });

  it('when a user follows the reset link of the e-mail in a browser and sets a password, then they can log in with it and the link is spent', async () => {
    const admin = await buildAdmin(t);
    const org = await buildOrganization();
    const user = await buildUser({ organizationId: org.id, role: 'ROLE_MEMBER' });
    await t.http.post(`/api/admin/users/${user.id}/reset-password`).set(bearer(admin.mfaToken)).expect(202);
    const mail = await OutboxMessage.findOne({ where: { userId: user.id, template: 'password_reset' } });
    const link = /(http:\/\/localhost:1\/portal\/member\/reset-password#token=[\w-]+)/.exec(mail!.textBody!)?.[1];
    assert.ok(link, 'the e-mail links to the member portal page');

    const page = await browser.newPage();
    await page.route(
      (url) => offlineOnly(url),
      (route) => route.abort(),
    );
    await page.goto(link!.replace('http://localhost:1', base));
    assert.equal(new URL(page.url()).hash, '', 'the token leaves the address bar once read');
    await page.getByLabel('New password', { exact: true }).fill('a brand new passphrase');
    await page.getByLabel('Repeat the new password').fill('a different passphrase');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('The two passwords do not match.').waitFor();
    await page.getByLabel('Repeat the new password').fill('a brand new passphrase');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Your password is set.').waitFor();
    await page.screenshot({ path: '/tmp/guildhall-reset-password.png' });
    await t.http.post('/api/auth/login').send({ email: user.email, password: 'a brand new passphrase' }).expect(200);

    await page.close();
    const again = await browser.newPage();
    await again.goto(link!.replace('http://localhost:1', base));
    await again.getByLabel('New password', { exact: true }).fill('yet another passphrase');
    await again.getByLabel('Repeat the new password').fill('yet another passphrase');
    await again.getByRole('button', { name: 'Set password' }).click();
    await again.getByText('This link has expired or was already used.').waitFor();
    await again.close();
  });

  it('when an admin opens the user portal link of an impersonation, then the page says whom the token acts as and can end the session', async () => {
    const admin = await buildAdmin(t);
    const org = await buildOrganization();
    const user = await buildUser({ organizationId: org.id, role: 'ROLE_MEMBER', firstName: 'Mary', lastName: 'Major' });
    const started = await t.http
      .post(`/api/admin/users/${user.id}/impersonate`)
      .set(bearer(admin.mfaToken))
      .send({ reason: 'support ticket 42' })
      .expect(201);
    const url = new URL(`${started.body.redirectUrl}#access_token=${started.body.accessToken}`);

    const page = await browser.newPage();
    await page.route(
      (target) => offlineOnly(target),
      (route) => route.abort(),
    );
    await page.goto(`${base}${url.pathname}${url.hash}`);
    await page.getByText(`Mary Major <${user.email}>`).waitFor();
    assert.equal(await page.locator('#role').textContent(), 'Member');
    assert.equal(await page.locator('#mode').textContent(), 'Read-only');
    assert.match((await page.locator('#curl').textContent())!, /Authorization: Bearer /);
    await page.screenshot({ path: '/tmp/guildhall-impersonation-landing.png', fullPage: true });
    await page.getByRole('button', { name: 'End impersonation' }).click();
    await page.getByText('The impersonation session has ended.').waitFor();
    const me = await t.http.get('/api/auth/me').set(bearer(started.body.accessToken));
    assert.equal(me.status, 401, 'the token no longer works');
    await page.close();
  });

  it('when the API docs are opened, then "Try it out" offers the server the docs come from, first', async () => {
    const page = await browser.newPage();
    await page.route(
      (url) => offlineOnly(url),
      (route) => route.abort(),
    );
    await page.goto(`${base}/api/docs`);
    const servers = page.locator('.servers select option');
    await servers.first().waitFor({ state: 'attached' });
    assert.equal(await servers.first().getAttribute('value'), base);
    await page.close();
  });
});
