// The demo organization's records: enough members, events and courses for lists, filters and exports
// to show something; the same records every time; a second seeding adds nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEMO_RECORD_COUNTS } from '../../seeders/demo-records.seeder.ts';
import { seedDemo, type DemoData } from '../../seeders/demo.seeder.ts';
import { Member } from '../../src/modules/members/member.model.ts';
import { bearer } from '../factories/index.ts';
import { parseCsv } from '../setup/csv.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('demo records', () => {
  let t: TestApp;
  let demo: DemoData;
  before(async () => {
    t = await startTestApp({ env: { DEMO_API_KEY: 'gh_live_demoRecordsTestKey0123456789' } });
    demo = (await seedDemo(t.container))!;
  });
  after(() => t.close());

  it('when the demo data is created, then the demo organization has a few dozen members and a dozen events and courses', async () => {
    assert.deepEqual(demo.records, { members: 36, events: 12, courses: 9 });
    const members = await t.http.get('/api/members?itemsPerPage=100').set(bearer(demo.apiKey));
    assert.equal(members.status, 200);
    assert.equal(members.body.data.length, DEMO_RECORD_COUNTS.members);
    for (const kind of ['events', 'courses'] as const) {
      const list = await t.http.get(`/api/${kind}?itemsPerPage=100`).set(bearer(demo.apiKey));
      assert.equal(list.body.data.length, DEMO_RECORD_COUNTS[kind]);
    }
  });

  it('when members are filtered by status and tier, then every status and both tiers have members', async () => {
    for (const status of ['active', 'pending', 'lapsed', 'cancelled']) {
      const res = await t.http.get(`/api/members?status=${status}`).set(bearer(demo.apiKey));
      assert.equal(res.status, 200);
      assert.ok(res.body.data.length > 0, `no ${status} member`);
      assert.ok(res.body.data.every((m: { status: string }) => m.status === status));
    }
    const premium = await t.http.get('/api/members?tier=premium').set(bearer(demo.apiKey));
    assert.ok(premium.body.data.length >= 5);
    const smi = await t.http.get('/api/members?lastName=smi').set(bearer(demo.apiKey));
    assert.deepEqual([...new Set(smi.body.data.map((m: { lastName: string }) => m.lastName))].sort(), [
      'Smith',
      'Smithers',
    ]);
  });

  it('when events are filtered by date, then some are upcoming and some past, and statuses vary', async () => {
    const now = t.clock.now().toISOString();
    const upcoming = await t.http.get(`/api/events?startsAt[after]=${now}`).set(bearer(demo.apiKey));
    const past = await t.http.get(`/api/events?startsAt[strictly_before]=${now}`).set(bearer(demo.apiKey));
    assert.ok(
      upcoming.body.data.length >= 5 && past.body.data.length >= 3,
      `${upcoming.body.data.length} upcoming, ${past.body.data.length} past`,
    );
    const cancelled = await t.http.get('/api/events?status=cancelled').set(bearer(demo.apiKey));
    assert.ok(cancelled.body.data.length >= 1);
    const archived = await t.http.get('/api/courses?status=archived').set(bearer(demo.apiKey));
    assert.ok(archived.body.data.length >= 1);
  });

  it('when the members are exported as CSV, then every demo member is a row', async () => {
    const res = await t.http.get('/api/members').set(bearer(demo.apiKey)).set('Accept', 'text/csv');
    assert.equal(res.status, 200);
    assert.equal(parseCsv(res.text).length, 1 + DEMO_RECORD_COUNTS.members);
  });

  it('when the demo data is seeded again, then nothing is added, and a deleted demo record comes back as it was', async () => {
    const before = (
      await Member.findAll({ where: { organizationId: demo.organization.id }, order: [['email', 'ASC']] })
    ).map((m) => [m.email, m.status, m.tier, m.joinedAt]);
    const removed = await Member.findOne({
      where: { organizationId: demo.organization.id },
      order: [['email', 'ASC']],
    });
    await removed!.destroy();
    assert.equal(await seedDemo(t.container), null);
    const afterSeeding = (
      await Member.findAll({ where: { organizationId: demo.organization.id }, order: [['email', 'ASC']] })
    ).map((m) => [m.email, m.status, m.tier, m.joinedAt]);
    assert.deepEqual(afterSeeding, before);
    assert.equal(await seedDemo(t.container), null);
    assert.equal(await Member.count({ where: { organizationId: demo.organization.id } }), DEMO_RECORD_COUNTS.members);
  });
});
