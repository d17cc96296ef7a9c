// The Admin Portal's platform pages in a real browser: the dashboard (figures and the admin's own MFA
// enrolment), organizations through OrganizationService, audit entries, impersonation sessions, jobs
// and the outbox preview.
// test-runner: timeout 300 s (pages rendered in Chromium: minutes on a busy 2-core machine)
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { totpCode } from '../../src/modules/auth/mfa.ts';
import { ImpersonationRequest } from '../../src/modules/impersonation/impersonation-request.model.ts';
import { ImpersonationSession } from '../../src/modules/impersonation/impersonation-session.model.ts';
import { OutboxMessage } from '../../src/modules/mail/outbox-message.model.ts';
import { Organization } from '../../src/modules/organizations/organization.model.ts';
import type { User } from '../../src/modules/users/user.model.ts';
import { buildApiKey, buildOrganization, buildUser, PASSWORD } from '../factories/index.ts';
import { buildAdmin, mfaSecretOf } from '../factories/mfa.ts';
import { prepareAdminBundle } from '../setup/admin-bundle.ts';
import { acquireBrowser, offlineOnly, releaseBrowser } from '../setup/browser.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

const SHOTS = process.env.PORTAL_SCREENSHOTS; // a folder to keep screenshots in, for looking at the pages

describe('Admin Portal platform pages in a browser', { timeout: 300_000 }, () => {
  let t: TestApp;
  let server: Server;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let admin: User;
  let org: Organization;
  let mary: User;
  let nora: User;

  async function login(target: Page, email: string, otp: string): Promise<void> {
    await target.goto(`${base}/admin/login`);
    await target.fill('input[name=email]', email);
    await target.fill('input[name=password]', PASSWORD);
    await target.fill('input[name=otp]', otp);
    await target.click('button[type=submit]');
    await target.waitForURL(`${base}/admin`);
  }
  const shot = async (target: Page, name: string) => {
    if (SHOTS) await target.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  };
  const count = async (sql: string) => ((await t.db.sequelize.query(sql, { plain: true })) as { n: number }).n;

  before(async () => {
    t = await startTestApp();
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    ({ admin } = await buildAdmin(t, { firstName: 'Petra', lastName: 'Portal' }));
    org = await buildOrganization({ name: 'Acme Guild', plan: 'enterprise' });
    await buildOrganization({ name: 'Small Guild', plan: 'standard' });
    mary = await buildUser({
      organizationId: org.id,
      role: 'ROLE_MEMBER',
      firstName: 'Mary',
      lastName: 'Member',
      email: 'mary@platform.test',
    });
    await buildUser({
      organizationId: org.id,
      role: 'ROLE_CLIENT_ADMIN',
      firstName: 'Carl',
      lastName: 'Client',
      email: 'carl@platform.test',
      status: 'suspended',
    });
    assert.equal((await fetch(`${base}/admin/login`)).status, 200); // loads the portal
    await prepareAdminBundle(base); // built once for every browser test file
    browser = await acquireBrowser();
    context = await browser.newContext();
    await context.route(offlineOnly, (route) => route.abort());
    page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await login(page, admin.email, totpCode(mfaSecretOf(admin)!, t.clock.now()));
  });
  after(async () => {
    await releaseBrowser();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  it('when the admin opens the portal, then the dashboard shows users by status and role, new users, organizations by plan, the items needing attention, recent audit events and their MFA state', async () => {
    await page.goto(`${base}/admin`);
    await page.waitForSelector('[data-testid=dashboard]');
    await shot(page, 'dashboard');
    const text = async (id: string) => ((await page.textContent(`[data-testid=${id}]`)) ?? '').replace(/\s+/g, ' ');
    assert.match(await text('users-by-status'), /Active\s*2/);
    assert.match(await text('users-by-status'), /Suspended\s*1/);
    assert.match(await text('users-by-role'), /Platform Admin\s*1/);
    assert.match(await text('users-by-role'), /Client Admin\s*1/);
    assert.match(await text('new-users'), /Last 7 days: 3.*Last 30 days: 3/);
    assert.match(await text('organizations-by-plan'), /Enterprise\s*1/);
    assert.match(await text('organizations-by-plan'), /Standard\s*1/);
    const unsent = await count("SELECT count(*)::int AS n FROM mail_outbox WHERE status <> 'sent'");
    assert.match(
      await text('attention'),
      new RegExp(`0 open impersonation sessions.*${unsent} outbox ${unsent === 1 ? 'message' : 'messages'} not sent`),
    );
    assert.match(await text('mfa'), /MFA is enabled for your account/);
    // the admin's MFA enrolment is in the audit log, with the admin's name linking to their record
    const recent = page.locator('[data-testid=recent-audit]');
    assert.match((await recent.textContent()) ?? '', /User: MFA enabled.*Petra Portal/s);
    assert.match((await recent.textContent()) ?? '', /\d{4}-\d\d-\d\d \d\d:\d\d UTC/, "the portal's one time format");
    assert.equal((await recent.locator(`a[href$="/resources/users/records/${admin.id}/show"]`).count()) > 0, true);
  });

  it('when an admin without MFA opens the dashboard, then they can enrol there with the secret shown and a code', async () => {
    nora = await buildUser({
      role: 'ROLE_PLATFORM_ADMIN',
      firstName: 'Nora',
      lastName: 'Nomfa',
      email: 'nora@platform.test',
    });
    const other = await browser.newContext();
    await other.route(offlineOnly, (route) => route.abort());
    const visitor = await other.newPage();
    await login(visitor, nora.email, '');
    await visitor.waitForSelector('text=MFA is not enabled for your account');
    await visitor.click('[data-testid=mfa-enrol]');
    const uri = await visitor.inputValue('[data-testid=mfa-uri]');
    const secret = await visitor.inputValue('[data-testid=mfa-secret]');
    assert.match(uri, new RegExp(`^otpauth://totp/.*secret=${secret}`));
    await visitor.fill('[data-testid=mfa-code]', '000000');
    await visitor.click('[data-testid=mfa-verify]');
    await visitor.waitForSelector('[data-testid=mfa-message]:has-text("not valid")');
    await visitor.fill('[data-testid=mfa-code]', totpCode(secret, t.clock.now()));
    await shot(visitor, 'dashboard-mfa-enrol');
    await visitor.click('[data-testid=mfa-verify]');
    await visitor.waitForSelector('text=MFA is enabled for your account');
    await nora.reload();
    assert.ok(nora.mfaEnabledAt, 'the auth service enabled MFA');
    await other.close();
  });

  it('when wrong codes at the dashboard reach the login limit, then it answers 429 with Retry-After and says when to try again', async () => {
    const greta = await buildUser({ role: 'ROLE_PLATFORM_ADMIN', firstName: 'Greta', lastName: 'Guess' });
    const other = await browser.newContext();
    await other.route(offlineOnly, (route) => route.abort());
    const visitor = await other.newPage();
    await login(visitor, greta.email, '');
    await visitor.click('[data-testid=mfa-enrol]');
    const secret = await visitor.inputValue('[data-testid=mfa-secret]');
    const valid = [-1, 0, 1].map((step) => totpCode(secret, new Date(t.clock.now().getTime() + step * 30_000)));
    const wrong = ['000000', '111111', '222222'].find((code) => !valid.includes(code))!;
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const res = await visitor.request.post(`${base}/admin/mfa/verify`, { data: { code: wrong } });
      statuses.push(res.status());
    }
    assert.deepEqual(statuses, [401, 401, 401, 401, 401], 'each wrong code is refused (LOGIN_MAX_FAILURES is 5)');
    const throttled = await visitor.request.post(`${base}/admin/mfa/verify`, { data: { code: valid[1] } });
    assert.equal(throttled.status(), 429);
    assert.ok(Number(throttled.headers()['retry-after']) > 0, 'Retry-After says when');
    await visitor.fill('[data-testid=mfa-code]', valid[1]!);
    await visitor.click('[data-testid=mfa-verify]');
    await visitor.waitForSelector('[data-testid=mfa-message]:has-text("try again in 15 minute")');
    await other.close();
  });

  it('when the organizations list is opened, then each organization shows its plan, status and counts of users, members and API keys', async () => {
    await page.goto(`${base}/admin/resources/organizations`);
    await page.waitForSelector('tbody tr');
    await shot(page, 'organizations-list');
    await page.getByRole('heading', { name: /^Organizations/ }).waitFor();
    const headers = (
      await page.$$eval('thead th, thead td', (cells) => cells.map((c) => c.textContent?.trim() ?? ''))
    ).filter(Boolean);
    assert.deepEqual(headers, [
      'Name',
      'Slug',
      'Plan',
      'Environment',
      'Status',
      'Users',
      'Members',
      'Active API keys',
      'Created',
    ]);
    const acme = page.locator('tbody tr', { hasText: 'Acme Guild' });
    assert.match(
      ((await acme.textContent()) ?? '').replace(/\s+/g, ' '),
      /Acme Guild.*Enterprise.*Production.*Active\s*2\s*0\s*0/,
    );
  });

  it('when an organization is created in the portal form, then OrganizationService creates and audits it, and a malformed slug is refused in the form', async () => {
    const create = async (name: string, slug: string) => {
      await page.goto(`${base}/admin/resources/organizations/actions/new`);
      await page.fill('input[name=name]', name);
      await page.fill('input[name=slug]', slug);
      await page.locator('[data-css="organizations-edit-plan"] input').first().fill('Professional');
      await page.keyboard.press('Enter');
      await page.click('button[type=submit]');
    };
    await create('Bad Slug Guild', 'Bad Slug!');
    await page.locator('text=lower-case letters, digits and hyphens').first().waitFor();
    assert.equal(await Organization.count({ where: { name: 'Bad Slug Guild' } }), 0);
    await create('New Guild', 'new-guild');
    await page.waitForURL((url) => !url.pathname.endsWith('/actions/new'));
    await page.locator('text=Organization New Guild created').first().waitFor();
    const created = await Organization.findOne({ where: { slug: 'new-guild' } });
    assert.equal(created?.plan, 'professional');
    assert.equal(
      await count(
        `SELECT count(*)::int AS n FROM audit_log WHERE action = 'organization.created' AND target_id = '${created!.id}'`,
      ),
      1,
    );
    await create('Another New Guild', 'new-guild');
    await page.locator('text=Another organization already uses this slug').first().waitFor();
  });

  it('when the plan is changed, then the service changes it and the audit entry shows it before and after', async () => {
    await page.goto(`${base}/admin/resources/organizations/records/${org.id}/show`);
    await page.click('[data-testid=action-changePlan]');
    // plans by the names the portal gives them elsewhere, not their code names
    await page
      .locator(`text=Currently ${org.plan[0]!.toUpperCase()}${org.plan.slice(1)}.`)
      .first()
      .waitFor();
    assert.deepEqual(await page.locator('#plan option').allTextContents(), ['Standard', 'Professional', 'Enterprise']);
    await page.selectOption('#plan', 'professional');
    await shot(page, 'organization-change-plan');
    await page.click('[data-testid=save-plan]');
    await page.waitForURL(`${base}/admin/resources/organizations/records/${org.id}/show`);
    await page.locator('text=Acme Guild: plan changed').first().waitFor();
    await org.reload();
    assert.equal(org.plan, 'professional');
    assert.equal(
      await count(
        `SELECT count(*)::int AS n FROM audit_log WHERE action = 'organization.updated' AND target_id = '${org.id}' AND after->>'plan' = 'professional'`,
      ),
      1,
    );
  });

  it('when an organization is suspended and reactivated from its page, then the service changes its status each time (and a bare GET of the action changes nothing)', async () => {
    // what a link from another site could make the admin's browser do: the action acts only on POST
    assert.equal(
      (await page.request.get(`${base}/admin/api/resources/organizations/records/${org.id}/suspend`)).status(),
      200,
    );
    await org.reload();
    assert.equal(org.status, 'active');
    await page.goto(`${base}/admin/resources/organizations/records/${org.id}/show`);
    await page.click('[data-testid=action-suspend]');
    await page.click('[data-testid=confirm-action]');
    await page.locator('text=Acme Guild: suspended').first().waitFor();
    await org.reload();
    assert.equal(org.status, 'suspended');
    assert.ok(org.suspendedAt);
    await page.goto(`${base}/admin/resources/organizations/records/${org.id}/show`);
    assert.equal(
      await page.locator('[data-testid=action-suspend]').count(),
      0,
      'a suspended organization offers Reactivate instead',
    );
    await page.click('[data-testid=action-reactivate]');
    await page.click('[data-testid=confirm-action]');
    await page.locator('text=Acme Guild: reactivated').first().waitFor();
    await org.reload();
    assert.equal(org.status, 'active');
    // Back to the confirmation of an action the record no longer offers: said in words, no {{placeholders}}
    await page.goto(`${base}/admin/resources/organizations/records/${org.id}/reactivate`);
    await page.locator('text=This action is not available for this record now').first().waitFor();
    assert.doesNotMatch((await page.textContent('body')) ?? '', /\{\{/);
  });

  it('when "Users of this organization" is chosen, then the users list opens filtered by that organization', async () => {
    await page.goto(`${base}/admin/resources/organizations/records/${org.id}/show`);
    await page.click('[data-testid=action-usersOfOrganization]');
    await page.waitForURL(new RegExp(`/admin/resources/users\\?filters\\.organizationId=${org.id}`));
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 2);
    assert.match((await page.textContent('tbody')) ?? '', /Mary Member.*Carl Client|Carl Client.*Mary Member/s);
  });

  it('when an audit entry is opened, then Before and After show the changed record, and who and what are names linking to their pages', async () => {
    const [entry] = (await t.db.sequelize.query(
      `SELECT id::text AS id FROM audit_log WHERE action = 'organization.updated' AND target_id = '${org.id}' ORDER BY id LIMIT 1`,
      { type: 'SELECT' },
    )) as Array<{ id: string }>;
    await page.goto(`${base}/admin/resources/audit_log/records/${entry!.id}/show`);
    await page.waitForSelector('[data-testid=json-before]');
    await shot(page, 'audit-entry');
    assert.match((await page.textContent('[data-testid=json-before]')) ?? '', /"plan": "enterprise"/);
    assert.match((await page.textContent('[data-testid=json-after]')) ?? '', /"plan": "professional"/);
    await page.getByRole('heading', { name: 'Audit entry', exact: true }).waitFor();
    // codes in words: the action, who acted and what was acted on
    const shown = ((await page.textContent('section, main, body')) ?? '').replace(/\s+/g, ' ');
    assert.match(shown, /Action ?Organization: updated/i);
    assert.match(shown, /Actor type ?User/i);
    const actor = page.locator('[data-testid=link-actorId]');
    assert.equal(await actor.textContent(), 'Petra Portal');
    assert.ok((await actor.getAttribute('href'))!.endsWith(`/admin/resources/users/records/${admin.id}/show`));
    const target = page.locator('[data-testid=link-targetId]');
    assert.equal(await target.textContent(), 'Acme Guild');
    assert.ok((await target.getAttribute('href'))!.endsWith(`/admin/resources/organizations/records/${org.id}/show`));
  });

  it('when an API key acted, then its audit entry and the dashboard name the key and link to its page', async () => {
    const { apiKey, secret } = await buildApiKey(org.id);
    await t.http
      .post('/api/members')
      .set('Authorization', `Bearer ${secret}`)
      .send({ firstName: 'Kay', lastName: 'Keyed', email: 'kay@platform.test' })
      .expect(201);
    const keyPage = `/admin/resources/api_keys/records/${apiKey.id}/show`;
    // its page names who created it, linked to their record
    await apiKey.update({ createdByUserId: admin.id });
    await page.goto(`${base}${keyPage}`);
    const creator = page.locator(`a[href$="/admin/resources/users/records/${admin.id}/show"]`);
    await creator.waitFor();
    assert.equal((await creator.textContent())?.trim(), 'Petra Portal');
    assert.match((await page.textContent('section, main, body')) ?? '', /Created by/);
    await page.goto(`${base}/admin`);
    const recent = page.locator('[data-testid=recent-audit]');
    await recent.locator(`a[href$="${keyPage}"]`).first().waitFor();
    assert.match((await recent.textContent()) ?? '', /Member: created.*test key \(API key\)/s);

    const [entry] = (await t.db.sequelize.query(
      `SELECT id::text AS id FROM audit_log WHERE action = 'member.created' AND actor_id = '${apiKey.id}'`,
      { type: 'SELECT' },
    )) as Array<{ id: string }>;
    await page.goto(`${base}/admin/resources/audit_log/records/${entry!.id}/show`);
    const actor = page.locator('[data-testid=link-actorId]');
    await actor.waitFor();
    assert.equal(await actor.textContent(), 'test key (API key)');
    assert.ok((await actor.getAttribute('href'))!.endsWith(keyPage));
  });

  it('when the audit log is filtered by a user, then only the entries that user made are listed, by name', async () => {
    const made = await count(`SELECT count(*)::int AS n FROM audit_log WHERE actor_id = '${nora.id}'`);
    assert.ok(made >= 2, 'Nora enrolled in MFA');
    await page.goto(`${base}/admin/resources/audit_log?filters.user=${nora.id}`);
    await page.waitForFunction((n) => document.querySelectorAll('tbody tr').length === n, made);
    const rows = await page.$$eval('tbody tr', (trs) => trs.map((tr) => tr.textContent ?? ''));
    assert.ok(
      rows.every((row) => row.includes('Nora Nomfa') && !row.includes('Petra Portal')),
      rows.join('\n'),
    );
    // a day range, as the date picker sends it, is whole UTC days: that day to that day finds the day's entries
    const [{ day }] = (await t.db.sequelize.query(
      `SELECT to_char(max(occurred_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM audit_log WHERE actor_id = '${nora.id}'`,
      { type: 'SELECT' },
    )) as Array<{ day: string }>;
    const ofTheDay = await count(
      `SELECT count(*)::int AS n FROM audit_log WHERE actor_id = '${nora.id}' AND (occurred_at AT TIME ZONE 'UTC')::date = '${day}'`,
    );
    const range = `filters.occurredAt~~from=${day}&filters.occurredAt~~to=${day}`;
    const listed = await page.request.get(
      `${base}/admin/api/resources/audit_log/actions/list?filters.user=${nora.id}&${range}`,
    );
    assert.equal(((await listed.json()) as { meta: { total: number } }).meta.total, ofTheDay);
  });

  it('when impersonation sessions are listed, then each shows the admin and target by name, duration and the number of actions performed', async () => {
    const now = t.clock.now().getTime();
    const session = await ImpersonationSession.create({
      adminId: admin.id,
      targetUserId: mary.id,
      mode: 'read_only',
      reason: 'support ticket',
      startedAt: new Date(now - 5 * 60_000),
      expiresAt: new Date(now + 10 * 60_000),
      endedAt: new Date(now - 60_000),
      endReason: 'exited',
    });
    for (const path of ['/api/members', '/api/events']) {
      await ImpersonationRequest.create({
        sessionId: session.id,
        adminId: admin.id,
        targetUserId: mary.id,
        method: 'GET',
        path,
        statusCode: 200,
        requestId: `req-${path}`,
        occurredAt: new Date(now - 3 * 60_000),
      });
    }
    await page.goto(`${base}/admin/resources/impersonation_sessions`);
    await page.waitForSelector('tbody tr');
    await shot(page, 'impersonation-sessions');
    const headers = (
      await page.$$eval('thead th, thead td', (cells) => cells.map((c) => c.textContent?.trim() ?? ''))
    ).filter(Boolean);
    assert.deepEqual(headers, [
      'Admin',
      'Target user',
      'Mode',
      'Started',
      'Ended',
      'Duration',
      'Actions performed',
      'End reason',
    ]);
    const row = ((await page.textContent('tbody tr')) ?? '').replace(/\s+/g, ' ');
    assert.match(row, /Petra Portal.*Mary Member.*Read only.*4 min 00 s.*2.*Exited/);
    await page.goto(`${base}/admin/resources/impersonation_sessions/records/${session.id}/show`);
    await page.getByRole('heading', { name: 'Impersonation session', exact: true }).waitFor();
    assert.match(
      ((await page.textContent('section, main, body')) ?? '').replace(/\s+/g, ' '),
      /Admin\s*Petra Portal.*Target user\s*Mary Member.*support ticket/,
    );
    // the requests made with it name the admin and the target, with the portal's one time format
    await page.goto(`${base}/admin/resources/impersonation_requests`);
    await page.waitForSelector('tbody tr');
    await shot(page, 'impersonation-requests');
    const request = ((await page.textContent('tbody tr')) ?? '').replace(/\s+/g, ' ');
    assert.match(
      request,
      /\d{4}-\d\d-\d\d \d\d:\d\d UTC.*Petra Portal.*Mary Member.*GET.*\/api\/(members|events).*200/,
    );
    assert.doesNotMatch(request, new RegExp(admin.id));
  });

  it('when a failed job is retried and then cancelled from its page, then the jobs service does it in pg-boss and audits it', async () => {
    const boss = t.container.queue.pgBoss;
    const id = (await boss.send(
      'webhook.deliver',
      { deliveryId: '00000000-0000-4000-8000-000000000000', attempt: 0 },
      { retryLimit: 0 },
    ))!;
    await boss.fail('webhook.deliver', id, { message: 'connect ECONNREFUSED 10.0.0.1:443' });
    await page.goto(`${base}/admin/resources/jobs?filters.state=failed`);
    await page.waitForSelector('tbody tr');
    assert.match((await page.textContent('tbody')) ?? '', /webhook\.deliver.*failed.*connect ECONNREFUSED/is);
    await page.goto(`${base}/admin/resources/jobs/records/${id}/show`);
    await shot(page, 'job-failed');
    await page.click('[data-testid=action-retry]');
    await page.click('[data-testid=confirm-action]');
    await page.locator('text=Job webhook.deliver: queued to run again').first().waitFor();
    const state = async () =>
      (
        (await t.db.sequelize.query(`SELECT state::text AS state FROM pgboss.job WHERE id = '${id}'`, {
          plain: true,
        })) as { state: string }
      ).state;
    assert.equal(await state(), 'retry');
    await page.goto(`${base}/admin/resources/jobs/records/${id}/show`);
    assert.equal(await page.locator('[data-testid=action-retry]').count(), 0, 'only a failed job offers Retry');
    await page.click('[data-testid=action-cancel]');
    await page.click('[data-testid=confirm-action]');
    await page.locator('text=Job webhook.deliver: cancelled').first().waitFor();
    assert.equal(await state(), 'cancelled');
    assert.equal(
      await count(
        `SELECT count(*)::int AS n FROM audit_log WHERE target_id = '${id}' AND action IN ('job.retried', 'job.cancelled') AND actor_id = '${admin.id}'`,
      ),
      2,
    );
  });

  it('when an outbox message is opened, then To, Subject and Status come first and the redacted text is previewed as escaped text', async () => {
    const message = await OutboxMessage.create({
      template: 'welcome',
      toAddress: 'mary@platform.test',
      userId: mary.id,
      subject: 'Welcome to Guildhall',
      textBody: 'Your temporary password is: hunter2-secret',
      htmlBody: '<p>Your temporary password is: <b>hunter2-secret</b></p>',
      redactedText:
        'Hello Mary,\n<b>not bold</b><img src=x onerror="window.__pwned=1">\nYour temporary password is: [redacted]',
      status: 'queued',
      attempts: 0,
    });
    await page.goto(`${base}/admin/resources/mail_outbox/records/${message.id}/show`);
    await page.waitForSelector('[data-testid=mail-preview]');
    await shot(page, 'outbox-message');
    const labels = await page.$$eval('section label, [data-css="mail_outbox-show"] label, label', (ls) =>
      ls.map((l) => l.textContent?.trim() ?? '').filter(Boolean),
    );
    assert.deepEqual(labels.slice(labels.indexOf('To'), labels.indexOf('To') + 4), [
      'To',
      'Subject',
      'Status',
      'Message (secrets removed)',
    ]);
    const preview = page.locator('[data-testid=mail-preview]');
    assert.match((await preview.textContent()) ?? '', /<b>not bold<\/b><img src=x onerror="window.__pwned=1">/);
    assert.equal(await preview.locator('b, img').count(), 0, 'markup is shown as text, not rendered');
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
    assert.ok(!(await page.content()).includes('hunter2-secret'), 'the stored bodies never reach the page');
  });

  it('when every list of the portal is opened, then its title names what it lists (not AdminJS’s bare "List")', async () => {
    const resources = await page.evaluate(() =>
      (window as unknown as { REDUX_STATE: { resources: { id: string }[] } }).REDUX_STATE.resources.map(
        (resource) => resource.id,
      ),
    );
    assert.ok(resources.length >= 16, `the portal lists ${resources.length} resources`);
    const titles: Record<string, string> = {};
    for (const id of resources) {
      await page.goto(`${base}/admin/resources/${id}`);
      const heading = page.locator('h2').first();
      await heading.waitFor({ state: 'visible' });
      titles[id] = (await heading.evaluate((node) => node.firstChild?.textContent ?? '')).trim();
    }
    const bare = Object.entries(titles).filter(([, title]) => title === '' || title === 'List');
    assert.deepEqual(bare, [], 'every list has a title of its own');
    assert.equal(titles.library_resources, 'Library resources');
    assert.equal(titles.webhook_deliveries, 'Webhook deliveries');
  });

  it('when a record page has four or five actions, then its buttons do not cover its title', async () => {
    // a laptop screen with the sidebar shown (below 1280 px AdminJS hides it and the row fits)
    await page.setViewportSize({ width: 1366, height: 900 });
    for (const target of [
      `/admin/resources/organizations/records/${org.id}/show`,
      `/admin/resources/users/records/${mary.id}/show`,
    ]) {
      await page.goto(`${base}${target}`);
      const title = page.locator('section.adminjs_ActionHeader h2').first();
      await title.waitFor({ state: 'visible' });
      await page.locator('section.adminjs_ActionHeader a[data-testid^="action-"]').first().waitFor();
      const overlaps = await page.evaluate(() => {
        const heading = document.querySelector('section.adminjs_ActionHeader h2')!;
        const range = document.createRange();
        range.selectNodeContents(heading);
        const text = range.getBoundingClientRect();
        return [...document.querySelectorAll('section.adminjs_ActionHeader a[data-testid^="action-"]')]
          .map((button) => ({ name: button.textContent, box: button.getBoundingClientRect() }))
          .filter(
            ({ box }) =>
              box.left < text.right && text.left < box.right && box.top < text.bottom && text.top < box.bottom,
          )
          .map(({ name }) => name);
      });
      assert.deepEqual(overlaps, [], `${target}: buttons drawn over the title`);
    }
    await shot(page, 'user-show-header');
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  it('when an admin logs in for the first time, then the navigation opens on the Platform group with Users first, and a group they open stays open after a reload', async () => {
    const wide = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    await wide.route(offlineOnly, (route) => route.abort());
    const visitor = await wide.newPage();
    visitor.setDefaultTimeout(60_000);
    t.clock.advance(30_000); // the first login's code is spent: a TOTP code is accepted once
    await login(visitor, admin.email, totpCode(mfaSecretOf(admin)!, t.clock.now()));
    const link = (resource: string) =>
      visitor
        .locator(`nav a[href$="/admin/resources/${resource}"], section a[href$="/admin/resources/${resource}"]`)
        .first();
    await link('users').waitFor({ state: 'visible' });
    await shot(visitor, 'navigation');
    assert.equal((await link('api_keys').textContent())?.trim(), 'API keys', 'named as the API names them');
    assert.equal(await link('audit_log').isVisible(), false, 'other groups start closed');
    await visitor.getByText('History', { exact: true }).first().click();
    await link('audit_log').waitFor({ state: 'visible' });
    // sentence case, as "API keys" and "Impersonated requests" beside them
    assert.equal((await link('audit_log').textContent())?.trim(), 'Audit log');
    assert.equal((await link('impersonation_sessions').textContent())?.trim(), 'Impersonation sessions');
    await visitor.reload();
    await link('audit_log').waitFor({ state: 'visible' });
    assert.equal(await link('users').isVisible(), true);
    await wide.close();
  });
});
