// The Admin Portal's login form in a real browser: a refused attempt keeps the e-mail (never the
// password or code), so only the mistyped field needs typing again.
// test-runner: timeout 300 s (pages rendered in Chromium: minutes on a busy 2-core machine)
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { totpCode } from '../../src/modules/auth/mfa.ts';
import type { User } from '../../src/modules/users/user.model.ts';
import { PASSWORD } from '../factories/index.ts';
import { buildAdmin, mfaSecretOf } from '../factories/mfa.ts';
import { prepareAdminBundle } from '../setup/admin-bundle.ts';
import { acquireBrowser, offlineOnly, releaseBrowser } from '../setup/browser.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('Admin Portal login form', { timeout: 240_000 }, () => {
  let t: TestApp;
  let server: Server;
  let base: string;
  let browser: Browser;
  let page: Page;
  let admin: User;

  before(async () => {
    t = await startTestApp();
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    ({ admin } = await buildAdmin(t, { email: 'kept.address@portal.test' }));
    assert.equal((await fetch(`${base}/admin/login`)).status, 200); // loads the portal
    await prepareAdminBundle(base); // built once for every browser test file
    browser = await acquireBrowser();
    const context = await browser.newContext();
    await context.route(offlineOnly, (route) => route.abort());
    page = await context.newPage();
    page.setDefaultTimeout(60_000);
  });
  after(async () => {
    await releaseBrowser();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  it('when a login is refused, then the form shows the error with the e-mail still filled in and the password and code empty', async () => {
    await page.goto(`${base}/admin/login`);
    assert.equal(await page.inputValue('input[name=email]'), '', 'a fresh visit starts empty');
    await page.fill('input[name=email]', admin.email);
    await page.fill('input[name=password]', 'not-the-password');
    await page.fill('input[name=otp]', '123456');
    await page.click('button[type=submit]');
    await page.getByText(/E-mail or password is incorrect/).waitFor({ timeout: 30_000 });
    assert.equal(await page.inputValue('input[name=email]'), admin.email);
    assert.equal(await page.inputValue('input[name=password]'), '');
    assert.equal(await page.inputValue('input[name=otp]'), '');
  });

  it('when the password and code are then entered without retyping the e-mail, then the admin is logged in', async () => {
    await page.fill('input[name=password]', PASSWORD);
    await page.fill('input[name=otp]', totpCode(mfaSecretOf(admin)!, t.clock.now()));
    await page.click('button[type=submit]');
    await page.waitForURL((url) => !url.pathname.endsWith('/login'), { timeout: 30_000 });
    assert.ok(new URL(page.url()).pathname.startsWith('/admin'));
  });
});
