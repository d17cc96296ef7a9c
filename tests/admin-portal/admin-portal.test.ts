// The Admin Portal in a real browser: login with MFA, the users grid and its filters, CSV export,
// impersonation with its banner and exit, and a refusal rule holding in the UI.
// test-runner: timeout 300 s (pages rendered in Chromium: minutes on a busy 2-core machine)
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ImpersonationSession } from '../../src/modules/impersonation/impersonation-session.model.ts';
import { totpCode } from '../../src/modules/auth/mfa.ts';
import { OutboxMessage } from '../../src/modules/mail/outbox-message.model.ts';
import { User } from '../../src/modules/users/user.model.ts';
import { ROLES } from '../../src/shared/access/roles.ts';
import { ROLE_LABELS } from '../../src/modules/users/user.labels.ts';
import { buildOrganization, buildUser, PASSWORD } from '../factories/index.ts';
import { buildAdmin, mfaSecretOf } from '../factories/mfa.ts';
import { prepareAdminBundle } from '../setup/admin-bundle.ts';
import { acquireBrowser, offlineOnly, releaseBrowser } from '../setup/browser.ts';
import { parseCsv } from '../setup/csv.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('Admin Portal in a browser', { timeout: 240_000 }, () => {
  let t: TestApp;
  let server: Server;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let admin: User;
  let mary: User;

  async function login(target: Page, email: string, password: string, otp: string): Promise<void> {
    await target.goto(`${base}/admin/login`);
    await target.fill('input[name=email]', email);
    await target.fill('input[name=password]', password);
    await target.fill('input[name=otp]', otp);
    await target.click('button[type=submit]');
  }

  before(async () => {
    // a bundle folder of its own, so no other process's AdminJS build can interfere
    t = await startTestApp();
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    ({ admin } = await buildAdmin(t, { firstName: 'Petra', lastName: 'Portal' }));
    const org = await buildOrganization({ name: 'Portal Org' });
    mary = await buildUser({
      organizationId: org.id,
      role: 'ROLE_MEMBER',
      firstName: 'Mary',
      lastName: 'Member',
      email: 'mary@portal.test',
    });
    await buildUser({
      organizationId: org.id,
      role: 'ROLE_CLIENT_ADMIN',
      firstName: 'Carl',
      lastName: 'Client',
      email: 'carl@portal.test',
    });
    assert.equal((await fetch(`${base}/admin/login`)).status, 200); // loads the portal
    await prepareAdminBundle(base); // built once for every browser test file
    browser = await acquireBrowser();
    context = await browser.newContext({ acceptDownloads: true });
    await context.route(offlineOnly, (route) => route.abort());
    page = await context.newPage();
    page.setDefaultTimeout(60_000);
  });
  after(async () => {
    await releaseBrowser();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  it('when someone other than a platform admin, or an admin with a wrong code, logs in, then the portal refuses', async () => {
    const other = await context.browser()!.newContext();
    await other.route(offlineOnly, (route) => route.abort());
    const visitor = await other.newPage();
    const refusal = async (message: RegExp) => {
      await visitor.locator(`text=${message.source}`).waitFor({ timeout: 30_000 });
      assert.ok(visitor.url().endsWith('/admin/login'));
    };
    await login(visitor, 'carl@portal.test', PASSWORD, '');
    await refusal(/The Admin Portal is for platform administrators/);
    await login(visitor, admin.email, PASSWORD, '000000');
    await refusal(/The one-time code is not valid/);
    await login(visitor, admin.email, PASSWORD, '');
    await refusal(/Enter the one-time code from your authenticator app/);
    await other.close();
  });

  it('when the admin logs in with a one-time code, then the users grid shows the spec columns, and a name filter narrows it', async () => {
    await login(page, admin.email, PASSWORD, totpCode(mfaSecretOf(admin)!, t.clock.now()));
    await page.waitForURL(`${base}/admin`);
    const sessions = await t.db.sequelize.query('SELECT count(*)::int AS n FROM admin_sessions', { plain: true });
    assert.ok((sessions as { n: number }).n >= 1, 'the session is kept in PostgreSQL');
    await page.goto(`${base}/admin/resources/users`);
    await page.waitForSelector('tbody tr');
    const headers = (
      await page.$$eval('thead th, thead td', (cells) => cells.map((c) => c.textContent?.trim() ?? ''))
    ).filter(Boolean);
    assert.deepEqual(headers, ['Name', 'Email', 'Role', 'Organization', 'Status', 'Last Login', 'Created']);
    assert.equal(await page.locator('tbody tr').count(), 3);

    await page.click('[data-css="users-filter-button"]');
    await page.fill('input[name="filter-name"]', 'mary');
    await page.click('button:has-text("Apply changes")');
    await page.waitForURL(/filters\.name=mary/);
    // applied, the drawer closes by itself: the filtered list is in view
    await page.waitForFunction(() => {
      const drawer = document.querySelector('form[data-css="users-filter-drawer"]');
      return drawer !== null && drawer.getBoundingClientRect().left >= window.innerWidth - 1;
    });
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    assert.match(
      (await page.textContent('tbody')) ?? '',
      /Mary Member.*mary@portal\.test.*Member.*Portal Org.*Active/s,
    );
  });

  it('when the filtered list is exported, then the CSV download holds exactly the filtered rows', async () => {
    // one click on the list (the users branch replaced the export drawer with a link that counts the rows)
    await page.locator('[data-testid=export-csv]:has-text("1 row")').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-csv]')]);
    assert.match(download.suggestedFilename(), /^users-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows = parseCsv(await readFile((await download.path())!, 'utf8'));
    assert.equal(rows[0]!.join(','), 'ID,Name,Email,Role,Organization,Status,Last Login,Created,Deleted');
    assert.deepEqual(
      rows.slice(1).map((r) => [r[0], r[1], r[2], r[3], r[4], r[5]]),
      [[mary.id, 'Mary Member', 'mary@portal.test', 'Member', 'Portal Org', 'Active']],
    );
  });

  it('when an impersonation is started from the grid, then a banner shows while it lasts and the exit button ends it', async () => {
    await page.goto(`${base}/admin/resources/users?filters.email=mary@portal.test`);
    await page.locator('tbody tr').first().locator('[data-testid=actions-dropdown]').click();
    await page.click('[data-testid=action-impersonate]');
    await page.selectOption('#mode', 'read_only');
    await page.fill('#reason', 'browser test');
    await page.click('[data-testid=start-impersonation]');
    await page.waitForSelector('[data-testid=impersonation-started]');
    const banner = page.locator('[data-testid=impersonation-banner]');
    await banner.waitFor();
    assert.match(
      (await banner.textContent()) ?? '',
      /Impersonating Mary Member \(mary@portal\.test\) · read-only · ends \d\d:\d\d UTC/,
    );
    assert.equal(await banner.locator('a').count(), 0, 'no portal link without the session token');
    // the notice of the start sits below the banner, not over its Exit button
    const notice = page.locator('[data-css="notice-wrapper"]');
    await notice.waitFor();
    const [noticeBox, bannerBox] = [await notice.boundingBox(), await banner.boundingBox()];
    assert.ok(
      noticeBox!.y >= bannerBox!.y + bannerBox!.height - 1,
      `notice at ${noticeBox!.y}, banner ${JSON.stringify(bannerBox)}`,
    );
    const open = await ImpersonationSession.findOne({
      where: { adminId: admin.id, targetUserId: mary.id, endedAt: null },
    });
    assert.equal(open?.reason, 'browser test');

    await page.goto(`${base}/admin/resources/organizations`);
    await banner.waitFor(); // on every page while active
    await page.click('[data-testid=exit-impersonation]');
    await page.waitForURL(`${base}/admin/resources/users`);
    await page.waitForSelector('tbody tr');
    assert.equal(await banner.count(), 0);
    await open!.reload();
    assert.equal(open!.endReason, 'exited');
  });

  it('when a user is created through the portal form, then the API service creates it (welcome e-mail included) and a taken e-mail, a blank name or an address that is no e-mail is refused in the form', async () => {
    const create = async (email: string, firstName = 'Nina') => {
      await page.goto(`${base}/admin/resources/users/actions/new`);
      await page.fill('input[name=firstName]', firstName);
      await page.fill('input[name=lastName]', 'New');
      await page.fill('input[name=email]', email);
      await page.locator('[data-css="users-edit-role"] input').first().fill('Member');
      await page.keyboard.press('Enter');
      await page.locator('[data-css="users-edit-organizationId"] input').first().fill('Portal');
      await page.locator('text=Portal Org').last().waitFor();
      await page.keyboard.press('Enter');
      await page.click('button[type=submit]');
    };
    await create('nina@portal.test');
    await page.waitForURL(`${base}/admin/resources/users`);
    await page.locator('text=User nina@portal.test created').first().waitFor(); // not AdminJS's "a new record"
    const nina = await User.findOne({ where: { email: 'nina@portal.test' } });
    assert.equal(nina?.role, 'ROLE_MEMBER');
    assert.equal(nina?.organizationId, mary.organizationId);
    assert.ok(await OutboxMessage.findOne({ where: { userId: nina!.id, template: 'welcome' } }));

    await create('MARY@portal.test');
    await page.locator('text=E-mail already in use').first().waitFor();
    assert.ok(page.url().endsWith('/admin/resources/users/actions/new'));

    // what the contract refuses, the form refuses too: a blank name, an address that is no e-mail
    await create('nina.blank@portal.test', '   ');
    await page.locator('text=must not be blank').first().waitFor();
    assert.equal(await User.count({ where: { email: 'nina.blank@portal.test' } }), 0);
    // corrected on the same form: the success notice replaces the refusal's, which no longer shows beside it
    const notices = page.locator('[data-testid=notice-wrapper]');
    await notices.getByText('Some fields need attention').waitFor();
    await page.fill('input[name=firstName]', 'Nina');
    await page.click('button[type=submit]');
    await page.waitForURL(`${base}/admin/resources/users`);
    assert.ok(await User.findOne({ where: { email: 'nina.blank@portal.test' } }));
    await page.waitForFunction(() => document.querySelector('[data-testid=notice-wrapper]')?.children.length === 1);
    assert.doesNotMatch((await notices.textContent()) ?? '', /need attention/);
    const posted = await page.request.post(`${base}/admin/api/resources/users/actions/new`, {
      data: { firstName: 'Nina', lastName: 'New', email: 'not-an-email', role: 'ROLE_MEMBER' },
    });
    const refused = (await posted.json()) as { record: { errors: Record<string, { message: string }> } };
    assert.equal(refused.record.errors.email?.message, 'must be an e-mail address');
    assert.equal(await User.count({ where: { email: 'not-an-email' } }), 0);
    // the rest of the contract's rules: a short password, a long phone, a made-up role (was a 500), a
    // status a new user cannot start with (was stored as active)
    const refusals = async (fields: Record<string, string>) => {
      const answer = await page.request.post(`${base}/admin/api/resources/users/actions/new`, {
        data: { firstName: 'Nina', lastName: 'New', email: 'nina.rules@portal.test', role: 'ROLE_MEMBER', ...fields },
      });
      assert.equal(answer.status(), 200);
      const { record } = (await answer.json()) as { record: { errors: Record<string, { message: string }> } };
      return Object.fromEntries(Object.entries(record.errors).map(([field, error]) => [field, error.message]));
    };
    const organizationId = mary.organizationId!;
    assert.deepEqual(await refusals({ organizationId, password: 'abc', phone: '1'.repeat(60), role: 'ROLE_GOD' }), {
      password: 'must be at least 12 characters',
      phone: 'must be at most 40 characters',
      // in the portal's words: the roles by their labels, as the dropdown shows them
      role: `must be one of ${ROLES.map((role) => ROLE_LABELS[role]).join(', ')}`,
    });
    assert.deepEqual(await refusals({ organizationId, status: 'suspended' }), {
      status: 'must be one of active, pending',
    });
    assert.equal(await User.count({ where: { email: 'nina.rules@portal.test' } }), 0);
    // the typed password is not sent back
    const created = await page.request.post(`${base}/admin/api/resources/users/actions/new`, {
      data: {
        firstName: 'Nina',
        lastName: 'Typed',
        email: 'nina.typed@portal.test',
        role: 'ROLE_MEMBER',
        organizationId,
        password: 'TypedInitialPw1!',
      },
    });
    assert.doesNotMatch(await created.text(), /TypedInitialPw1!/);
    assert.ok(await User.findOne({ where: { email: 'nina.typed@portal.test' } }));
    // nor when the creation is refused
    const refusedTyped = await page.request.post(`${base}/admin/api/resources/users/actions/new`, {
      data: {
        firstName: 'Nina',
        lastName: 'Again',
        email: 'MARY@portal.test',
        role: 'ROLE_MEMBER',
        organizationId,
        password: 'TypedRefusedPw1!',
      },
    });
    assert.match(await refusedTyped.text(), /already in use/);
    assert.doesNotMatch(await refusedTyped.text(), /TypedRefusedPw1!/);
    // a required field cleared on Edit is refused, not kept with a success notice
    const typed = await User.findOne({ where: { email: 'nina.typed@portal.test' } });
    const cleared = await page.request.post(`${base}/admin/api/resources/users/records/${typed!.id}/edit`, {
      data: { role: '', firstName: '', status: '' },
    });
    const { record: clearedRecord } = (await cleared.json()) as { record: { errors: Record<string, unknown> } };
    assert.deepEqual(Object.keys(clearedRecord.errors).sort(), ['firstName', 'role', 'status']);
    await typed!.reload();
    assert.equal(typed!.role, 'ROLE_MEMBER');
    assert.equal(typed!.firstName, 'Nina');
  });

  it('when the other resources are opened, then each one lists its records', async () => {
    type ListBody = { records: unknown[]; meta: { total: number } };
    for (const resource of [
      'organizations',
      'api_keys',
      'audit_log',
      'impersonation_sessions',
      'impersonation_requests',
      'mail_outbox',
      'jobs',
    ]) {
      const [listed] = await Promise.all([
        page.waitForResponse((res) => res.url().includes(`/admin/api/resources/${resource}/actions/list`)),
        page.goto(`${base}/admin/resources/${resource}`),
      ]);
      assert.equal(listed.status(), 200, resource);
      // AdminJS reads the page and the total in two queries; pg-boss may add a job between them, so the
      // jobs list is read again (as a person reloads) until the two agree
      let body = (await listed.json()) as ListBody;
      for (let read = 1; read < 5 && body.records.length !== Math.min(body.meta.total, 25); read++) {
        body = (await (await page.request.get(listed.url())).json()) as ListBody;
      }
      assert.equal(body.records.length, Math.min(body.meta.total, 25), resource);
    }
    const audit = await (await page.request.get(`${base}/admin/api/resources/audit_log/actions/list`)).json();
    assert.ok(audit.meta.total > 0, "the audit log has the portal's own changes");
  });

  it('when the admin opens their own account, then Delete is not offered; posted anyway, the refusal rule answers and nothing is deleted', async () => {
    await page.goto(`${base}/admin/resources/users/records/${mary.id}/show`);
    await page.locator('[data-testid=action-delete]').waitFor(); // offered on another user's page
    await page.goto(`${base}/admin/resources/users/records/${admin.id}/show`);
    await page.locator('[data-testid=action-edit]').waitFor();
    assert.equal(await page.locator('[data-testid=action-delete]').count(), 0);
    const res = await page.request.post(`${base}/admin/api/resources/users/records/${admin.id}/delete`, { data: {} });
    assert.equal(res.status(), 200);
    assert.match(((await res.json()) as { notice: { message: string } }).notice.message, /Cannot delete own account/);
    await admin.reload();
    assert.equal(admin.deletedAt, null);
  });
});
