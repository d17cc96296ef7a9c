// The portal's rolling 10-second budget: the sync waits for it instead of meeting HubSpot's 429, and
// two budget holders on one database (two instances) never grant more than the budget together.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CrmBudget } from '../../src/modules/crm/crm-budget.ts';
import { Sql } from '../../src/shared/sql.ts';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { buildMember } from '../factories/records.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { type HubSpotStandIn, hubSpotEnv, startHubSpotStandIn } from '../support/hubspot-stand-in.ts';

const BUDGET = 2;

describe('CRM burst budget', () => {
  let t: TestApp;
  let hub: HubSpotStandIn;

  before(async () => {
    hub = await startHubSpotStandIn({ budget: BUDGET });
    t = await startTestApp({
      env: {
        ...hubSpotEnv(hub),
        CRM_BURST_LIMIT: String(BUDGET),
      },
      workers: true,
    });
  });
  after(async () => {
    await t?.close();
    await hub?.close();
  });

  it('a sync needing twice the budget waits for the window instead of meeting a 429', async () => {
    const organizationId = (await buildOrganization()).id;
    const admin = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
    // 250 members: the mapping check and three batches, four calls for a budget of two per 10 s
    for (let n = 0; n < 250; n++) await buildMember(organizationId, { email: `wait${n}@members.test` });
    hub.properties.add('guildhall_membership_status');
    const started = await t.http.post('/api/crm/connection').set(bearer(admin)).expect(200);
    const consent = await fetch(new URL(started.body.authorizeUrl), { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') as string);
    const began = Date.now();
    await t.http.get(`${back.pathname}${back.search}`).expect(302);
    const deadline = Date.now() + 60_000;
    while (hub.contacts.size < 250) {
      if (Date.now() > deadline) assert.fail(`only ${hub.contacts.size} contacts after 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.equal(hub.rateLimited, 0, 'HubSpot never had to refuse a call');
    assert.ok(hub.maxInWindow() <= BUDGET);
    assert.ok(Date.now() - began >= 9_000, 'the third call waited for the window');
  });

  it('two holders of the budget on one database grant exactly the budget between them', async () => {
    const organizationId = (await buildOrganization()).id;
    await t.db.sequelize.query(
      `INSERT INTO crm_connections (organization_id, status, hub_id) VALUES ($1, 'connected', 'hub-two-instances')`,
      { bind: [organizationId] },
    );
    const holder = () =>
      new CrmBudget({ sequelize: t.db.sequelize, sql: new Sql(t.db.sequelize), limits: { burst: 5, daily: 1000 } });
    const [first, second] = [holder(), holder()];
    const grants = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 ? first : second).take(organizationId, 'hub-two-instances')),
    );
    assert.equal(grants.filter((g) => g.granted).length, 5);
    const refused = grants.find((g) => !g.granted);
    assert.ok(refused && !refused.granted && refused.waitMs > 0 && refused.waitMs <= 11_000 && !refused.daily);
  });

  it('the daily budget ends the day: no grant until midnight UTC', async () => {
    const organizationId = (await buildOrganization()).id;
    await t.db.sequelize.query(
      `INSERT INTO crm_connections (organization_id, status, hub_id) VALUES ($1, 'connected', 'hub-daily')`,
      { bind: [organizationId] },
    );
    const budget = new CrmBudget({
      sequelize: t.db.sequelize,
      sql: new Sql(t.db.sequelize),
      limits: { burst: 100, daily: 3 },
    });
    const grants = [];
    for (let i = 0; i < 4; i++) grants.push(await budget.take(organizationId, 'hub-daily'));
    assert.deepEqual(
      grants.map((g) => g.granted),
      [true, true, true, false],
    );
    const last = grants[3]!;
    assert.ok(!last.granted && last.daily && last.waitMs > 0 && last.waitMs <= 86_400_000);
  });
});
