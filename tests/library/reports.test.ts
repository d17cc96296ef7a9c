// Library usage: the daily rollup, per-resource stats and the four reports, against the real app and
// database. Events are inserted at chosen times (tests/factories/resource-usage.ts); the clock is set
// to 2026-06-15 12:00 UTC, so "today" is 2026-06-15 and the rollup may cover up to 2026-06-14.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, buildApiKey, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { buildCategory, buildResource, recordEvents, type ResourceFixture } from '../factories/resource-usage.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { activeMemberToken } from './library-helpers.ts';

const NOW = new Date('2026-06-15T12:00:00Z');
const RANGE = 'from=2026-06-10&to=2026-06-15';

describe('library usage: rollup, stats and reports', () => {
  let t: TestApp;
  let organizationId: string;
  let admin: string;
  let staff: string;
  let memberToken: string;
  let apiKey: string;
  let otherAdmin: string;
  let guide: ResourceFixture;
  let video: ResourceFixture;
  let draft: ResourceFixture;
  let ada: { id: string; email: string };
  let bob: { id: string; email: string };
  let categories: { handbooks: string; media: string; archived: string };

  before(async () => {
    t = await startTestApp();
    t.clock.set(NOW);
    organizationId = (await buildOrganization()).id;
    const adminUser = await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId });
    admin = await tokenFor(t, adminUser);
    staff = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_USER', organizationId }));
    memberToken = await activeMemberToken(t, organizationId);
    apiKey = (await buildApiKey(organizationId)).secret;
    otherAdmin = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN' }));
    const adaUser = await buildUser({ role: 'ROLE_MEMBER', organizationId, firstName: 'Ada', lastName: 'Lovelace' });
    const bobUser = await buildUser({ role: 'ROLE_MEMBER', organizationId, firstName: 'Bob', lastName: 'Builder' });
    ada = { id: adaUser.id, email: adaUser.email };
    bob = { id: bobUser.id, email: bobUser.email };

    const { sequelize } = t.db;
    guide = await buildResource(sequelize, organizationId, { name: 'Member guide' });
    video = await buildResource(sequelize, organizationId, {
      name: 'Welcome video',
      type: 'video',
      format: 'mp4',
      accessLevel: 'public',
    });
    draft = await buildResource(sequelize, organizationId, { name: 'Draft notes', status: 'draft' });
    categories = {
      handbooks: await buildCategory(sequelize, organizationId, 'Handbooks', { resourceIds: [guide.id, video.id] }),
      media: await buildCategory(sequelize, organizationId, 'Media', { resourceIds: [video.id] }),
      archived: await buildCategory(sequelize, organizationId, 'Old', { archived: true }),
    };
    await recordEvents(sequelize, organizationId, [
      // guide: Ada on two days, Bob once, an anonymous visitor once; 3 downloads
      { resourceId: guide.id, kind: 'view', at: '2026-06-12T09:00:00Z', userId: ada.id, times: 2 },
      { resourceId: guide.id, kind: 'download', at: '2026-06-12T09:05:00Z', userId: ada.id },
      { resourceId: guide.id, kind: 'view', at: '2026-06-14T23:59:59Z', userId: ada.id },
      { resourceId: guide.id, kind: 'download', at: '2026-06-14T10:00:00Z', userId: bob.id },
      { resourceId: guide.id, kind: 'view', at: '2026-06-15T08:00:00Z', visitorKey: 'anonymous:v1' },
      { resourceId: guide.id, kind: 'download', at: '2026-06-15T08:01:00Z', visitorKey: 'anonymous:v1' },
      // video: Bob views on two days, 1 download today; the draft: one admin view
      { resourceId: video.id, kind: 'view', at: '2026-06-13T00:00:00Z', userId: bob.id },
      { resourceId: video.id, kind: 'view', at: '2026-06-15T11:00:00Z', userId: bob.id },
      { resourceId: video.id, kind: 'download', at: '2026-06-15T11:01:00Z', userId: bob.id },
      { resourceId: draft.id, kind: 'view', at: '2026-06-13T12:00:00Z', userId: adminUser.id },
      // outside the range
      { resourceId: guide.id, kind: 'download', at: '2026-06-09T23:59:59Z', userId: ada.id, times: 5 },
    ]);
  });
  after(() => t.close());

  const api = { get: (path: string, token = admin) => t.http.get(path).set(bearer(token)) };

  async function expectGuideStats() {
    const res = await api.get(`/api/resources/${guide.id}/stats?${RANGE}`).expect(200);
    assert.deepEqual(res.body.totals, { views: 4, downloads: 3, uniqueUsers: 3 });
    const byDay = Object.fromEntries(res.body.days.map((d: { date: string }) => [d.date, d]));
    assert.equal(res.body.days.length, 6);
    assert.deepEqual(byDay['2026-06-10'], { date: '2026-06-10', views: 0, downloads: 0, uniqueUsers: 0 });
    assert.deepEqual(byDay['2026-06-12'], { date: '2026-06-12', views: 2, downloads: 1, uniqueUsers: 1 });
    assert.deepEqual(byDay['2026-06-14'], { date: '2026-06-14', views: 1, downloads: 1, uniqueUsers: 2 });
    assert.deepEqual(byDay['2026-06-15'], { date: '2026-06-15', views: 1, downloads: 1, uniqueUsers: 1 });
    return res.body;
  }

  it('when the rollup has never run, then stats come from the raw events, per day and in total (unique users exact over the range)', async () => {
    const body = await expectGuideStats();
    assert.equal(body.resourceId, guide.id);
    assert.deepEqual([body.from, body.to], ['2026-06-10', '2026-06-15']);
  });

  it('when the rollup job runs (twice), then it covers whole days up to yesterday and the stats and reports do not change', async () => {
    const before = (await api.get(`/api/resources/reports/usage?${RANGE}`).expect(200)).body;
    const first = await t.container.services.usageRollup.refresh(t.clock.now());
    assert.equal(first?.through, '2026-06-14');
    assert.equal(first?.from, '2026-06-09', 'the first run starts at the first event');
    const [[counts]] = (await t.db.sequelize.query(
      `SELECT (SELECT count(*) FROM resource_usage_daily)::int AS days, (SELECT count(*) FROM resource_usage_daily_readers)::int AS readers`,
    )) as [Array<{ days: number; readers: number }>, unknown];
    const again = await t.container.services.usageRollup.refresh(t.clock.now());
    assert.equal(again?.from, '2026-06-13', 'later runs rebuild the recent days only');
    const [[countsAgain]] = (await t.db.sequelize.query(
      `SELECT (SELECT count(*) FROM resource_usage_daily)::int AS days, (SELECT count(*) FROM resource_usage_daily_readers)::int AS readers`,
    )) as [Array<{ days: number; readers: number }>, unknown];
    assert.deepEqual(countsAgain, counts, 'idempotent');
    const [[guideDay]] = (await t.db.sequelize.query(
      `SELECT views, downloads, unique_users FROM resource_usage_daily WHERE resource_id = $1 AND day = '2026-06-14'`,
      { bind: [guide.id] },
    )) as [unknown[], unknown];
    assert.deepEqual(guideDay, { views: 1, downloads: 1, unique_users: 2 });
    await expectGuideStats();
    assert.deepEqual((await api.get(`/api/resources/reports/usage?${RANGE}`).expect(200)).body, before);
  });

  it("when events arrive after the rollup (today's, and a late one for a rolled-up day), then today's count at once and the late one after the next run", async () => {
    await recordEvents(t.db.sequelize, organizationId, [
      { resourceId: video.id, kind: 'view', at: '2026-06-15T11:30:00Z', userId: ada.id },
      { resourceId: video.id, kind: 'view', at: '2026-06-14T23:00:00Z', userId: ada.id },
    ]);
    let totals = (await api.get(`/api/resources/${video.id}/stats?${RANGE}`).expect(200)).body.totals;
    assert.deepEqual(
      totals,
      { views: 3, downloads: 1, uniqueUsers: 2 },
      "today's view counts at once; the late one waits for the job",
    );
    await t.container.services.usageRollup.refresh(t.clock.now());
    totals = (await api.get(`/api/resources/${video.id}/stats?${RANGE}`).expect(200)).body.totals;
    assert.deepEqual(totals, { views: 4, downloads: 1, uniqueUsers: 2 });
    // put the video back as the other tests expect it
    await t.db.sequelize.query(`DELETE FROM resource_usage_events WHERE resource_id = $1 AND user_id = $2`, {
      bind: [video.id, ada.id],
    });
    await t.container.services.usageRollup.refresh(t.clock.now());
  });

  it('when the usage report is read, then one row per resource with activity, most downloaded first, paged, with the key metrics', async () => {
    const res = await api.get(`/api/resources/reports/usage?${RANGE}&itemsPerPage=1`).expect(200);
    assert.deepEqual(res.body.summary, {
      totalViews: 7,
      totalDownloads: 4,
      uniqueUsers: 4,
      topResource: { id: guide.id, name: 'Member guide', downloads: 3, views: 4 },
    });
    assert.deepEqual(res.body.pagination, { page: 1, itemsPerPage: 1, totalItems: 3, totalPages: 3 });
    assert.match(res.headers.link, /rel="next"/);
    assert.deepEqual(res.body.data, [
      {
        resourceId: guide.id,
        name: 'Member guide',
        type: 'document',
        format: 'pdf',
        accessLevel: 'members',
        status: 'published',
        views: 4,
        downloads: 3,
        uniqueUsers: 3,
        lastActivityAt: '2026-06-15T08:01:00.000Z',
      },
    ]);
    const all = await api.get(`/api/resources/reports/usage?${RANGE}`).expect(200);
    assert.deepEqual(
      all.body.data.map((row: { resourceId: string }) => row.resourceId),
      [guide.id, video.id, draft.id],
    );
    assert.deepEqual(all.body.data[1], {
      resourceId: video.id,
      name: 'Welcome video',
      type: 'video',
      format: 'mp4',
      accessLevel: 'public',
      status: 'published',
      views: 2,
      downloads: 1,
      uniqueUsers: 1,
      lastActivityAt: '2026-06-15T11:01:00.000Z',
    });
  });

  it('when a client user reads, then drafts are left out as in their lists; an API key reads like an admin', async () => {
    const res = await api.get(`/api/resources/reports/usage?${RANGE}`, staff).expect(200);
    assert.deepEqual(
      res.body.data.map((row: { resourceId: string }) => row.resourceId),
      [guide.id, video.id],
    );
    assert.equal(res.body.summary.totalViews, 6);
    expectProblem(await api.get(`/api/resources/${draft.id}/stats`, staff), 404, 'not_found');
    const byKey = await t.http.get(`/api/resources/reports/usage?${RANGE}`).set(bearer(apiKey)).expect(200);
    assert.equal(byKey.body.pagination.totalItems, 3);
  });

  it('when a member or another organization asks, then 403 for reports and stats, and 404 for a resource they do not see', async () => {
    for (const path of [
      '/api/resources/reports/usage',
      '/api/resources/reports/categories',
      '/api/resources/reports/members',
      '/api/resources/reports/trends',
      `/api/resources/${guide.id}/stats`,
    ]) {
      expectProblem(await api.get(path, memberToken), 403, 'forbidden');
    }
    expectProblem(
      await t.http
        .post('/api/resources/reports/export')
        .set(bearer(memberToken))
        .send({ report: 'usage', format: 'csv' }),
      403,
      'forbidden',
    );
    expectProblem(await api.get(`/api/resources/${guide.id}/stats`, otherAdmin), 404, 'not_found');
    const theirs = await api.get(`/api/resources/reports/usage?${RANGE}`, otherAdmin).expect(200);
    assert.deepEqual(theirs.body.data, []);
    assert.deepEqual(theirs.body.summary, { totalViews: 0, totalDownloads: 0, uniqueUsers: 0, topResource: null });
  });

  it('when the category report is read, then every category with its resources and their usage (distinct readers), archived ones flagged', async () => {
    const res = await api.get(`/api/resources/reports/categories?${RANGE}`).expect(200);
    assert.deepEqual(res.body.data, [
      {
        categoryId: categories.handbooks,
        name: 'Handbooks',
        archived: false,
        resources: 2,
        views: 6,
        downloads: 4,
        uniqueUsers: 3,
        lastActivityAt: '2026-06-15T11:01:00.000Z',
      },
      {
        categoryId: categories.media,
        name: 'Media',
        archived: false,
        resources: 1,
        views: 2,
        downloads: 1,
        uniqueUsers: 1,
        lastActivityAt: '2026-06-15T11:01:00.000Z',
      },
      {
        categoryId: categories.archived,
        name: 'Old',
        archived: true,
        resources: 0,
        views: 0,
        downloads: 0,
        uniqueUsers: 0,
        lastActivityAt: null,
      },
    ]);
    assert.equal(res.body.summary.totalDownloads, 4);
  });

  it('when the members report is read, then signed-in users by activity (ties: latest first) with name, e-mail and last activity; anonymous visitors only in the metrics', async () => {
    const res = await api.get(`/api/resources/reports/members?${RANGE}`).expect(200);
    const rows = res.body.data as Array<{ userId: string }>;
    assert.deepEqual(rows[1], {
      userId: ada.id,
      name: 'Ada Lovelace',
      email: ada.email,
      views: 3,
      downloads: 1,
      resourcesUsed: 1,
      lastActivityAt: '2026-06-14T23:59:59.000Z',
    });
    assert.deepEqual(rows[0], {
      userId: bob.id,
      name: 'Bob Builder',
      email: bob.email,
      views: 2,
      downloads: 2,
      resourcesUsed: 2,
      lastActivityAt: '2026-06-15T11:01:00.000Z',
    });
    assert.equal(rows.length, 3, 'Ada, Bob and the admin who viewed the draft');
    assert.equal(res.body.summary.uniqueUsers, 4);
  });

  it('when trends are read by day, week and month, then every period is there (zeros too), cut to the range, with distinct readers per period', async () => {
    const days = await api.get(`/api/resources/reports/trends?${RANGE}&interval=day`).expect(200);
    assert.equal(days.body.interval, 'day');
    assert.equal(days.body.data.length, 6);
    assert.deepEqual(days.body.data[0], {
      periodStart: '2026-06-10',
      periodEnd: '2026-06-10',
      views: 0,
      downloads: 0,
      uniqueUsers: 0,
    });
    assert.deepEqual(days.body.data[5], {
      periodStart: '2026-06-15',
      periodEnd: '2026-06-15',
      views: 2,
      downloads: 2,
      uniqueUsers: 2,
    });
    // 2026-06-10 is a Wednesday: weeks start on Monday 06-08 (cut to 06-10) and 06-15
    const weeks = await api.get(`/api/resources/reports/trends?${RANGE}&interval=week`).expect(200);
    assert.deepEqual(weeks.body.data, [
      { periodStart: '2026-06-10', periodEnd: '2026-06-14', views: 5, downloads: 2, uniqueUsers: 3 },
      { periodStart: '2026-06-15', periodEnd: '2026-06-15', views: 2, downloads: 2, uniqueUsers: 2 },
    ]);
    const months = await api
      .get(`/api/resources/reports/trends?from=2026-05-20&to=2026-06-15&interval=month`)
      .expect(200);
    assert.deepEqual(
      months.body.data.map((row: { periodStart: string; periodEnd: string }) => [row.periodStart, row.periodEnd]),
      [
        ['2026-05-20', '2026-05-31'],
        ['2026-06-01', '2026-06-15'],
      ],
    );
    assert.equal(months.body.data[1].downloads, 9, 'June includes the five downloads of 06-09');
  });

  it('when no range is given, then the 30 days ending today; a reversed or too long range is a 400', async () => {
    const res = await api.get('/api/resources/reports/trends').expect(200);
    assert.deepEqual([res.body.from, res.body.to, res.body.data.length], ['2026-05-17', '2026-06-15', 30]);
    // a read's query is its filters: a wrong range is refused as a malformed one is
    const reversed = expectProblem(
      await api.get('/api/resources/reports/usage?from=2026-06-15&to=2026-06-01'),
      400,
      'invalid_filter',
    );
    assert.equal(reversed.errors[0].field, 'from');
    expectProblem(await api.get('/api/resources/reports/usage?from=2020-01-01&to=2026-06-01'), 400, 'invalid_filter');
    // a day that does not exist is refused by the contract like any malformed query value
    expectProblem(await api.get('/api/resources/reports/usage?from=2026-02-30'), 400, 'invalid_filter');
    expectProblem(await api.get('/api/resources/reports/trends?interval=year'), 400, 'invalid_filter');
  });
});
