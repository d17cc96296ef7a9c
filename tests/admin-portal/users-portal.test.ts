// The Users resource of the Admin Portal in a real browser: refusals stay on the form, whole-day date
// ranges, the ownership picker, password reset, activity log, deleted users and permanent delete,
// impersonation offered only where it can succeed, and the list's polish (titles, badges, search,
// multi-value filters, empty result, one-click export, separate forms). Screenshots land in
// USERS_PORTAL_SCREENSHOTS when set.
// test-runner: timeout 300 s (pages rendered in Chromium: minutes on a busy 2-core machine)
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { totpCode } from '../../src/modules/auth/mfa.ts';
import { ImpersonationSession } from '../../src/modules/impersonation/impersonation-session.model.ts';
import { OutboxMessage } from '../../src/modules/mail/outbox-message.model.ts';
import { User } from '../../src/modules/users/user.model.ts';
import { buildApiKey, buildOrganization, buildUser, PASSWORD } from '../factories/index.ts';
import { buildAdmin, mfaSecretOf } from '../factories/mfa.ts';
import { prepareAdminBundle } from '../setup/admin-bundle.ts';
import { acquireBrowser, offlineOnly, releaseBrowser } from '../setup/browser.ts';
import { parseCsv } from '../setup/csv.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('Admin Portal: users', { timeout: 300_000 }, () => {
  let t: TestApp;
  let server: Server;
  let base: string;
  let browser: Browser;
  let page: Page;
  let admin: User;
  let adminMfaToken: string;
  let otherAdmin: User;
  let mary: User;
  let carl: User;
  let paula: User;
  let sam: User;
  const shots = process.env.USERS_PORTAL_SCREENSHOTS;

  const shot = async (name: string) => {
    if (shots) await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  };
  const rowsText = async () => (await page.locator('tbody').textContent()) ?? '';
  const listCount = async (query: string) => {
    const res = await page.request.get(`${base}/admin/api/resources/users/actions/list?${query}`);
    assert.equal(res.status(), 200);
    return ((await res.json()) as { meta: { total: number } }).meta.total;
  };
  const recordAction = async (id: string, action: string, data: Record<string, unknown>) => {
    const res = await page.request.post(`${base}/admin/api/resources/users/records/${id}/${action}`, { data });
    assert.equal(res.status(), 200);
    return (await res.json()) as {
      notice?: { message: string; type: string };
      record: { errors: Record<string, { message: string }> };
    };
  };

  before(async () => {
    if (shots) await mkdir(shots, { recursive: true });
    t = await startTestApp({ env: { IMPERSONATION_MAX_PER_HOUR: '1' } });
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    ({ admin, mfaToken: adminMfaToken } = await buildAdmin(t, {
      firstName: 'Petra',
      lastName: 'Portal',
      email: 'petra@portal.test',
    }));
    otherAdmin = await buildUser({
      role: 'ROLE_PLATFORM_ADMIN',
      firstName: 'Otto',
      lastName: 'Other',
      email: 'otto@portal.test',
    });
    const org = await buildOrganization({ name: 'Portal Org' });
    mary = await buildUser({
      organizationId: org.id,
      role: 'ROLE_MEMBER',
      firstName: 'Mary',
      lastName: 'Member',
      email: 'mary@portal.test',
    });
    carl = await buildUser({
      organizationId: org.id,
      role: 'ROLE_CLIENT_ADMIN',
      firstName: 'Carl',
      lastName: 'Client',
      email: 'carl@portal.test',
    });
    paula = await buildUser({
      organizationId: org.id,
      role: 'ROLE_MEMBER',
      status: 'pending',
      firstName: 'Paula',
      lastName: 'Pending',
      email: 'paula@portal.test',
    });
    sam = await buildUser({
      organizationId: org.id,
      role: 'ROLE_MEMBER',
      status: 'suspended',
      firstName: 'Sam',
      lastName: 'Suspended',
      email: 'sam@portal.test',
    });
    assert.equal((await fetch(`${base}/admin/login`)).status, 200); // loads the portal
    await prepareAdminBundle(base); // built once for every browser test file
    browser = await acquireBrowser();
    const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1400, height: 900 } });
    await context.route(offlineOnly, (route) => route.abort());
    page = await context.newPage();
    page.setDefaultTimeout(Number(process.env.USERS_PORTAL_TIMEOUT ?? 60_000));
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

  it('when a role is raised without the confirmation, then the edit form stays open with the error and nothing is saved', async () => {
    await page.goto(`${base}/admin/resources/users/records/${mary.id}/edit`);
    await page.locator('[data-css="users-edit-role"] input').first().fill('Client Admin');
    await page.keyboard.press('Enter');
    await page.click('[data-testid=button-save]');
    await page.locator('text=needs the confirmation').first().waitFor();
    await shot('edit-refusal');
    assert.ok(page.url().endsWith(`/users/records/${mary.id}/edit`), 'still on the form');
    assert.equal(await page.locator('text=Successfully updated').count(), 0);
    const notice = await recordAction(mary.id, 'edit', { role: 'ROLE_CLIENT_ADMIN' });
    assert.equal(notice.notice?.type, 'error');
    assert.match(
      notice.notice!.message,
      /Raising mary@portal\.test from Member to Client Admin needs the confirmation/,
    );
    assert.ok(notice.record.errors.confirmPrivilegeChange, 'pinned to the confirmation box');
    await mary.reload();
    assert.equal(mary.role, 'ROLE_MEMBER');
  });

  it('when the admin edits their own user, then role and status are disabled with why, and a forced change is an error, not a success', async () => {
    await page.goto(`${base}/admin/resources/users/records/${admin.id}/edit`);
    await page.locator('[data-testid=own-status]').waitFor();
    assert.equal(await page.locator('[data-testid=own-status] input').isDisabled(), true);
    assert.equal(await page.locator('[data-testid=own-role] input').isDisabled(), true);
    assert.match(
      (await page.locator('[data-testid=own-status]').textContent()) ?? '',
      /You cannot change your own status: another platform admin must do it/,
    );
    // Role disabled: no "Confirm raising the role" box to tick
    assert.equal(await page.locator('[data-css="users-edit-confirmPrivilegeChange"]').count(), 0);
    await shot('edit-own');
    const forced = await recordAction(admin.id, 'edit', { status: 'suspended' });
    assert.equal(forced.notice?.type, 'error');
    assert.match(forced.notice!.message, /You cannot change your own role or status/);
    await admin.reload();
    assert.equal(admin.status, 'active');
  });

  it('when a refusal names no field, then the edit is still an error kept on the form, not a success', async () => {
    const refused = await recordAction(mary.id, 'edit', { organizationId: '00000000-0000-4000-8000-000000000000' });
    assert.equal(refused.notice?.type, 'error');
    assert.match(refused.notice!.message, /Organization 00000000-0000-4000-8000-000000000000 does not exist/);
    assert.ok(refused.record.errors.form, 'a form-level error keeps AdminJS from reporting success');
    await page.goto(`${base}/admin/resources/users/records/${mary.id}/edit`);
    await page.fill('input[name=email]', 'carl@portal.test');
    await page.click('[data-testid=button-save]');
    await page.locator('text=E-mail already in use').first().waitFor();
    assert.ok(page.url().endsWith(`/users/records/${mary.id}/edit`));
    await mary.reload();
    assert.equal(mary.email, 'mary@portal.test');
  });

  it('when a date range is today to today as the picker sends it, then the users created today are found, as in the API', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const query = `filters.createdAt~~from=${today}T00:00:00.000Z&filters.createdAt~~to=${today}T00:00:00.000Z`;
    const all = await User.count();
    assert.equal(await listCount(query), all);
    await page.goto(`${base}/admin/resources/users?${query}`);
    await page.waitForFunction((n) => document.querySelectorAll('tbody tr').length === n, all);
    await page.click('[data-css="users-filter-button"]');
    await page.locator('[data-css="users-filter-drawer"]').waitFor();
    await shot('date-filter');
    const values = await page
      .locator('[data-css="users-filter-drawer"] input')
      .evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
    assert.ok(
      values.includes(today.replaceAll('-', '/')),
      `the picker shows the day, without a time: ${values.join(' | ')}`,
    );
  });

  it('when an admin east of UTC picks a day in the date filter, then that day is sent and its users are found', async () => {
    // Auckland's midnight is the previous day in UTC: the picker's time sent as it was found nobody
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setTimezoneOverride', { timezoneId: 'Pacific/Auckland' });
    try {
      const today = new Date().toISOString().slice(0, 10);
      await page.goto(`${base}/admin/resources/users`);
      await page.click('[data-css="users-filter-button"]');
      const drawer = page.locator('[data-css="users-filter-drawer"]');
      const created = drawer.locator('xpath=//label[normalize-space()="Created"]/ancestor::*[.//input][1]//input');
      for (const bound of [created.nth(0), created.nth(1)]) {
        await bound.click();
        await bound.pressSequentially(today.replaceAll('-', '/'));
        await page.keyboard.press('Escape');
      }
      await shot('date-filter-auckland');
      await drawer.locator('button:has-text("Apply changes")').click();
      await page.waitForFunction(() => new URLSearchParams(location.search).has('filters.createdAt~~to'));
      const sent = new URL(page.url()).searchParams;
      assert.equal(sent.get('filters.createdAt~~from'), today);
      assert.equal(sent.get('filters.createdAt~~to'), today);
      const all = await User.count();
      await page.waitForFunction((n) => document.querySelectorAll('tbody tr').length === n, all);
    } finally {
      await cdp.send('Emulation.setTimezoneOverride', { timezoneId: '' });
      await cdp.detach();
    }
  });

  it("when a user is deleted with a malformed transfer target, then the refusal is shown; the picker offers the organization's active users", async () => {
    const refused = await recordAction(carl.id, 'delete', { transferTo: 'not-a-user-id' });
    assert.equal(refused.notice?.type, 'error');
    assert.match(refused.notice!.message, /transferTo must be another active user of the same organization/);
    const api = await t.http
      .delete(`/api/admin/users/${carl.id}?transferTo=not-a-user-id`)
      .set('Authorization', `Bearer ${adminMfaToken}`);
    assert.equal(api.status, 400, 'the API refuses it too, never a 500');
    const offered = await page.request.get(`${base}/admin/api/resources/users/records/${carl.id}/delete`);
    const heirs = ((await offered.json()) as { heirs: Array<{ id: string; label: string }> }).heirs.map((h) => h.id);
    assert.deepEqual(
      heirs,
      [mary.id],
      'active users of the same organization, not Carl, not pending or suspended ones',
    );
    await carl.reload();
    assert.equal(carl.deletedAt, null);
  });

  it('when a password reset is sent from the user page, then the reset e-mail is queued', async () => {
    await page.goto(`${base}/admin/resources/users/records/${mary.id}/show`);
    // a GET of the action (a link from another site, with the admin's cookie) sends nothing
    const viaGet = await page.request.get(`${base}/admin/api/resources/users/records/${mary.id}/resetPassword`);
    assert.equal(viaGet.status(), 200);
    assert.equal(await OutboxMessage.count({ where: { userId: mary.id, template: 'password_reset' } }), 0);
    await page.click('[data-testid=action-resetPassword]');
    await page.getByText('Their current password keeps working until they do.').waitFor();
    await page.click('[data-testid=confirm-action]');
    await page.locator('text=Password reset e-mail sent to mary@portal.test').waitFor();
    // back on the user's page: no button left to send a second e-mail by mistake
    await page.waitForURL(new RegExp(`/admin/resources/users/records/${mary.id}/show`));
    await shot('password-reset');
    assert.ok(await OutboxMessage.findOne({ where: { userId: mary.id, template: 'password_reset' } }));
  });

  it('when the activity log of a user is opened, then it lists what happened to them and who did it, by name', async () => {
    await page.goto(`${base}/admin/resources/users/records/${mary.id}/activity`);
    await page.locator('[data-testid=user-activity] tbody tr').first().waitFor();
    assert.equal(
      (await page.locator('[data-testid=user-activity] h3').first().textContent())?.trim(),
      'Activity of Mary Member',
    );
    await shot('activity');
    // by whom, by name: the admin who sent the reset
    assert.match(
      (await page.locator('[data-testid=user-activity]').textContent()) ?? '',
      /\d\d:\d\d UTCUser: password reset requestedPetra Portal/,
    );
    assert.doesNotMatch((await page.locator('[data-testid=user-activity]').textContent()) ?? '', /an administrator/);
  });

  it('when a user is deleted, then the Deleted users view shows them with "Deleted on", without Edit or Impersonate, and Permanent delete needs the e-mail', async () => {
    const { apiKey } = await buildApiKey(carl.organizationId!);
    await apiKey.update({ createdByUserId: carl.id });
    await page.goto(`${base}/admin/resources/users/records/${carl.id}/delete`);
    await page.selectOption('#transferTo', mary.id);
    await shot('delete-picker');
    // a double click sends one delete (the second used to add "This user no longer exists")
    const deletes: string[] = [];
    const count = (request: { method: () => string; url: () => string }) => {
      if (request.method() === 'POST' && request.url().endsWith(`/records/${carl.id}/delete`))
        deletes.push(request.url());
    };
    page.on('request', count);
    await page.dblclick('[data-testid=confirm-delete]');
    await page.waitForURL(/\/admin\/resources\/users/);
    page.off('request', count);
    assert.equal(deletes.length, 1);
    await page.goto(`${base}/admin/resources/users`);
    await page.click('[data-testid=deleted-users-link]');
    await page.waitForURL(/filters\.deleted=true/);
    await page.locator('[data-testid=deleted-users-title]').waitFor();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    assert.match(await rowsText(), /Carl Client/);
    await page.goto(`${base}/admin/resources/users/records/${carl.id}/show`);
    await page.locator('[data-testid=show-deletedAt]').waitFor();
    assert.equal(
      (await page.locator('[data-testid=user-title]').textContent())?.trim(),
      'Carl ClientDeleted',
      'named, and marked deleted',
    );
    assert.match(
      (await page.locator('[data-testid=show-deletedAt]').textContent()) ?? '',
      /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/,
    );
    assert.equal(await page.locator('[data-testid=action-edit]').count(), 0);
    assert.equal(await page.locator('[data-testid=action-impersonate]').count(), 0);
    await shot('deleted-user');
    // Back (or a typed address) to an action the deleted user no longer offers: said in words
    await page.goto(`${base}/admin/resources/users/records/${carl.id}/edit`);
    await page.locator('text=This action is not available for this record now').first().waitFor();
    assert.doesNotMatch((await page.textContent('body')) ?? '', /does not have an action/);
    await page.goto(`${base}/admin/resources/users/records/${carl.id}/show`);
    await page.locator('[data-testid=show-deletedAt]').waitFor();
    await page.click('[data-testid=action-purge]');
    assert.equal(await page.locator('[data-testid=confirm-purge]').isDisabled(), true);
    const wrong = await recordAction(carl.id, 'purge', { confirmEmail: 'someone@else.test' });
    // any case, spaces around it: the address, not its spelling, is what is confirmed
    assert.match(wrong.notice!.message, /Type the user's e-mail address to confirm/);
    await page.fill('#confirmEmail', ' CARL@portal.test ');
    await page.click('[data-testid=confirm-purge]');
    await page.locator('text=Removed carl@portal.test permanently').waitFor();
    assert.equal(await User.findByPk(carl.id, { paranoid: false }), null);
    await apiKey.reload();
    assert.equal(apiKey.createdByUserId, mary.id, 'the picked user took the API key over');
  });

  it("when users cannot be impersonated, then Impersonate is not offered; a refusal and the hourly limit speak the portal's words", async () => {
    // an active user of a suspended organization: the service refuses it (422), so it is not offered
    const suspendedOrg = await buildOrganization({ name: 'Suspended Org' });
    const sid = await buildUser({
      organizationId: suspendedOrg.id,
      role: 'ROLE_MEMBER',
      firstName: 'Sid',
      lastName: 'Suspended-Org',
      email: 'sid@portal.test',
    });
    await suspendedOrg.update({ status: 'suspended', suspendedAt: new Date() });
    for (const user of [paula, sam, otherAdmin, admin, sid]) {
      await page.goto(`${base}/admin/resources/users/records/${user.id}/show`);
      await page.locator('[data-testid=action-edit]').waitFor();
      assert.equal(await page.locator('[data-testid=action-impersonate]').count(), 0, user.email);
    }
    await page.goto(`${base}/admin/resources/users/records/${mary.id}/show`);
    await page.locator('[data-testid=action-impersonate]').waitFor(); // offered where it can succeed
    await sid.destroy({ force: true }); // the later tests count this file's users
    const refused = await recordAction(otherAdmin.id, 'impersonate', { mode: 'read_only' });
    assert.equal(
      refused.notice!.message,
      'This user cannot be impersonated: platform admins and users of your own privilege or higher are excluded.',
    );
    const started = await recordAction(mary.id, 'impersonate', { mode: 'read_only' });
    assert.equal(started.notice?.type, 'success');
    const again = await recordAction(mary.id, 'impersonate', { mode: 'read_only' });
    assert.equal(
      again.notice!.message,
      'You already have an impersonation session open: end it with "Exit impersonation" in the banner at the top first.',
    );
    assert.doesNotMatch(again.notice!.message, /DELETE|\/api\//);
    await page.request.post(`${base}/admin/impersonation/exit`);
    const limited = await recordAction(mary.id, 'impersonate', { mode: 'read_only' });
    const session = await ImpersonationSession.findOne({ where: { adminId: admin.id } });
    const nextSlot = new Date(session!.startedAt.getTime() + 3600_000);
    const hhmm = (d: Date) => d.toISOString().slice(11, 16);
    assert.match(
      limited.notice!.message,
      /^At most 1 impersonation sessions per hour: you have reached the limit\. The next session can start at (\d\d:\d\d) UTC\.$/,
    );
    assert.ok(
      [hhmm(nextSlot), hhmm(new Date(nextSlot.getTime() + 1000))].includes(
        limited.notice!.message.match(/(\d\d:\d\d) UTC/)![1]!,
      ),
    );
  });

  it('when the list is opened, then it is titled Users, with coloured badges, a quick search, multi-value filters, an empty state and a one-click export', async () => {
    await page.goto(`${base}/admin/resources/users`);
    await page.waitForSelector('tbody tr');
    assert.match(
      (await page.locator('[data-css="users-list-action-header"] h2').first().textContent())?.trim() ?? '',
      /^Users\s*\d+$/,
      'titled Users, with the count',
    );
    const active = page.locator('[data-testid=badge-status-active]').first();
    const pending = page.locator('[data-testid=badge-status-pending]').first();
    const colour = (l: typeof active) => l.evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.notEqual(await colour(active), await colour(pending));
    assert.match((await page.locator('tbody tr').first().textContent()) ?? '', /\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    await page.locator('[data-testid=export-csv]:has-text("rows")').waitFor();
    const total = await User.count();
    assert.equal((await page.locator('[data-testid=export-csv]').textContent())?.trim(), `Export CSV (${total} rows)`);
    await shot('list');

    await page.fill('[data-testid=quick-search]', 'PAULA@');
    await page.keyboard.press('Enter');
    await page.waitForURL(/filters\.q=PAULA/);
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    assert.match(await rowsText(), /Paula Pending/);

    await page.goto(`${base}/admin/resources/users?filters.status=pending,suspended`);
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 2);
    assert.match(await rowsText(), /Paula Pending.*Sam Suspended|Sam Suspended.*Paula Pending/s);
    await page.locator('[data-testid=export-csv]:has-text("2 rows")').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-csv]')]);
    const csv = parseCsv(await readFile((await download.path())!, 'utf8'));
    assert.deepEqual(
      csv
        .slice(1)
        .map((r) => r[2])
        .sort(),
      ['paula@portal.test', 'sam@portal.test'],
    );
    await page.click('[data-css="users-filter-button"]');
    await page.locator('[data-testid=multi-filter-status]').waitFor();
    const chosen = (await page.locator('[data-testid=multi-filter-status]').textContent()) ?? '';
    assert.ok(chosen.includes('Pending') && chosen.includes('Suspended'), chosen);
    await shot('multi-filter');

    // a value edited into the URL that names no status, role or date matches nothing, as at the API
    for (const filter of [
      'filters.status=archived',
      'filters.roleGroup=superuser',
      'filters.createdAt~~from=notadate',
    ]) {
      await page.goto(`${base}/admin/resources/users?${filter}`);
      await page.locator('[data-testid=no-users-match]').waitFor();
    }

    await page.goto(`${base}/admin/resources/users?filters.q=nobody-by-this-name`);
    await page.locator('[data-testid=no-users-match]').waitFor();
    await page.locator('text=No users match these filters').waitFor();
    await shot('empty');
    // said once, without AdminJS's "Create first record" under it
    assert.equal(await page.locator('text=No users match these filters').count(), 1);
    assert.equal(await page.locator('text=Create first record').count(), 0);
    await page.click('[data-testid=clear-filters]');
    await page.waitForURL((url) => !url.search.includes('filters.'));
    await page.waitForSelector('tbody tr');
  });

  it('when a user is created or edited, then each form has only its own fields', async () => {
    await page.goto(`${base}/admin/resources/users/actions/new`);
    await page.locator('input[name=firstName]').waitFor();
    assert.equal(await page.locator('[data-css="users-edit-password"]').count(), 1);
    assert.equal(await page.locator('[data-css="users-edit-confirmPrivilegeChange"]').count(), 0);
    assert.equal(await page.locator('text=edit only').count(), 0);
    await shot('new-form');
    await page.goto(`${base}/admin/resources/users/records/${mary.id}/edit`);
    await page.locator('input[name=firstName]').waitFor();
    assert.equal((await page.locator('[data-testid=user-title]').textContent())?.trim(), 'Mary Member');
    assert.equal(await page.locator('[data-css="users-edit-password"]').count(), 0);
    assert.equal(await page.locator('[data-css="users-edit-confirmPrivilegeChange"]').count(), 1);
  });
});
