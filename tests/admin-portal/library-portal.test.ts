// The library in the Admin Portal, in a real browser: a platform admin sees each organization's
// resources, their versions, categories and the storage used per organization, read-only. Deletion
// goes through the library's ResourceService; on a build without it the action is not offered.
// test-runner: timeout 300 s (pages rendered in Chromium: minutes on a busy 2-core machine)
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import supertest from 'supertest';
import { totpCode } from '../../src/modules/auth/mfa.ts';
import { buildOrganization, PASSWORD } from '../factories/index.ts';
import { buildAdmin, mfaSecretOf } from '../factories/mfa.ts';
import { buildCategory, buildResource } from '../factories/resource-usage.ts';
import { prepareAdminBundle } from '../setup/admin-bundle.ts';
import { acquireBrowser, offlineOnly, releaseBrowser } from '../setup/browser.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

const SHOTS = process.env.PORTAL_SCREENSHOTS; // a folder to keep screenshots in, for looking at the pages

describe('Admin Portal library pages in a browser', { timeout: 600_000 }, () => {
  let t: TestApp;
  let server: Server;
  let base: string;
  let browser: Browser;
  let page: Page;
  let guideId: string;
  let adminEmail: string;
  let otp: () => string;

  const shot = async (name: string) => {
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  };
  const rowsText = async () => ((await page.locator('tbody').textContent()) ?? '').replace(/\s+/g, ' ');

  before(async () => {
    t = await startTestApp();
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { admin } = await buildAdmin(t, { firstName: 'Petra', lastName: 'Portal' });
    adminEmail = admin.email;
    otp = () => totpCode(mfaSecretOf(admin)!, t.clock.now());
    const acme = await buildOrganization({ name: 'Acme Guild' });
    const small = await buildOrganization({ name: 'Small Guild' });
    const { sequelize } = t.db;
    const guide = await buildResource(sequelize, acme.id, { name: 'Member guide', sizeBytes: 3 * 1024 * 1024 });
    guideId = guide.id;
    await sequelize.query("UPDATE resources SET tags = ARRAY['handbook', 'onboarding'], view_count = 7 WHERE id = $1", {
      bind: [guide.id],
    });
    await buildResource(sequelize, acme.id, {
      name: 'Welcome video',
      type: 'video',
      format: 'mp4',
      accessLevel: 'public',
      sizeBytes: 1024 * 1024,
    });
    await buildResource(sequelize, small.id, { name: 'Small notes', status: 'draft', sizeBytes: 2048 });
    await buildCategory(sequelize, acme.id, 'Handbooks', { resourceIds: [guide.id] });
    await buildCategory(sequelize, small.id, 'Archive', { archived: true });

    assert.equal((await fetch(`${base}/admin/login`)).status, 200); // loads the portal
    await prepareAdminBundle(base); // built once for every browser test file
    browser = await acquireBrowser();
    const context = await browser.newContext();
    await context.route(offlineOnly, (route) => route.abort());
    page = await context.newPage();
    page.setDefaultTimeout(60_000);
    // the first page waits for the portal's component bundle, slow on a busy machine
    await page.goto(`${base}/admin/login`, { timeout: 300_000 });
    await page.fill('input[name=email]', admin.email);
    await page.fill('input[name=password]', PASSWORD);
    await page.fill('input[name=otp]', otp());
    await page.click('button[type=submit]');
    await page.waitForURL(`${base}/admin`);
  });
  after(async () => {
    await releaseBrowser();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  it("when the library's resources are listed, then every organization's resources show with their organization, type, access level and status", async () => {
    await page.goto(`${base}/admin/resources/library_resources`);
    await page.waitForSelector('tbody tr');
    await shot('library-resources');
    const headers = (await page.locator('thead tr > *').allInnerTexts()).map((header) => header.trim()).filter(Boolean);
    assert.deepEqual(headers, [
      'Name',
      'Organization',
      'Type',
      'Format',
      'Access level',
      'Status',
      'Views',
      'Downloads',
      'Created',
    ]);
    const text = await rowsText();
    // codes in words: "mp4" as MP4, "published" as Published
    assert.match(text, /Member guide.*Acme Guild.*Published\s*7\s*0/);
    assert.match(text, /Welcome video.*Acme Guild.*Video.*MP4.*Public.*Published/);
    assert.match(text, /Small notes.*Small Guild.*Draft/);
    // the portal's stylesheet: a cell breaks at spaces, never inside a word ("publis hed"), even on a
    // narrow laptop screen (the list scrolls sideways when it must)
    await page.setViewportSize({ width: 1024, height: 768 });
    const wordsOnTwoLines = await page.evaluate(() =>
      [...document.querySelectorAll('tbody td')]
        .filter((td) => {
          const text = (td.textContent ?? '').trim();
          if (!text || /\s/.test(text)) return false;
          const range = document.createRange();
          range.selectNodeContents(td);
          return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size > 1;
        })
        .map((td) => td.textContent),
    );
    assert.deepEqual(wordsOnTwoLines, []);
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  it('when a resource is opened, then its details show and nothing offers to edit it; deletion is offered, through the resource service', async () => {
    await page.goto(`${base}/admin/resources/library_resources/records/${guideId}/show`);
    await page.waitForSelector('text=Member guide');
    await shot('library-resource-show');
    // tags on one line, as written
    assert.match((await page.textContent('section, main, body')) ?? '', /Tags\s*handbook, onboarding/);
    assert.equal(await page.locator('a[href*="/actions/edit"]').count(), 0);
    // the library's service is in the container: the portal offers deletion through it (a header button)
    assert.ok('resources' in t.container.services);
    await page.locator(':is(a, button):has-text("Delete Resource")').first().waitFor();
  });

  it('when versions, categories and storage are listed, then each shows per organization, storage with the bytes of every version', async () => {
    await page.goto(`${base}/admin/resources/library_versions`);
    await page.waitForSelector('tbody tr');
    await shot('library-versions');
    assert.match((await page.locator('h2').first().textContent()) ?? '', /^Resource versions/);
    assert.match(
      (await page.locator('thead tr > *').allInnerTexts()).join('|'),
      /Resource\|Version\|File name\|.*Organization/,
    );
    assert.match(await rowsText(), /file\.pdf/);
    assert.equal(await page.locator('tbody tr').count(), 3);

    await page.goto(`${base}/admin/resources/library_categories`);
    await page.waitForSelector('tbody tr');
    await shot('library-categories');
    assert.match(await rowsText(), /Handbooks.*Acme Guild/);
    assert.match(await rowsText(), /Archive.*Small Guild/);

    await page.goto(`${base}/admin/resources/library_storage`);
    await page.waitForSelector('tbody tr');
    await shot('library-storage');
    const text = await rowsText();
    assert.match(text, /Acme Guild\s*2\s*2\s*4\.0 MB\s*4,?194,?304/);
    assert.match(text, /Small Guild\s*1\s*1\s*2\.0 KB\s*2,?048/);
    assert.ok(text.indexOf('Acme Guild') < text.indexOf('Small Guild'), 'largest first');
  });

  it('when the portal API is asked to edit or delete a library record directly, then nothing changes', async () => {
    const agent = supertest.agent(t.app);
    t.clock.advance(30_000); // the before hook's code is spent: a TOTP code is accepted once
    await agent
      .post('/admin/login')
      .type('form')
      .send({ email: adminEmail, password: PASSWORD, otp: otp() })
      .expect(302);
    for (const action of ['edit', 'delete'])
      await agent.post(`/admin/api/resources/library_resources/records/${guideId}/${action}`).send({ name: 'Renamed' });
    const [[row]] = (await t.db.sequelize.query(`SELECT name FROM resources WHERE id = $1`, { bind: [guideId] })) as [
      Array<{ name: string }>,
      unknown,
    ];
    assert.equal(row?.name, 'Member guide', 'neither renamed nor deleted');
  });
});
