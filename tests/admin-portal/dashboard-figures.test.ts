// The dashboard's figures as the portal reads them, without a browser: the recent audit events are the
// newest by id, compared as numbers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dashboardFigures } from '../../admin/resources/dashboard.repository.ts';
import { AuditEntry } from '../../src/modules/audit/audit-entry.model.ts';
import { buildUser } from '../factories/index.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('the Admin Portal dashboard figures', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('when more than ten audit events exist, then the ten newest are shown, newest first (ids 12 and 11 above 9)', async () => {
    const admin = await buildUser({ role: 'ROLE_PLATFORM_ADMIN', organizationId: null });
    for (let i = 0; i < 12; i += 1) {
      await AuditEntry.create({
        organizationId: null,
        actorType: 'system',
        actorId: null,
        impersonatorId: null,
        action: `test.event_${i}`,
        targetType: 'user',
        targetId: null,
        before: null,
        after: null,
        requestId: null,
      });
    }
    const newest = (await AuditEntry.findAll({ order: [['id', 'DESC']], limit: 10 })).map((entry) => entry.id);
    const figures = await dashboardFigures(
      { sql: t.container.sql, clock: t.clock },
      {
        type: 'user',
        id: admin.id,
        organizationId: null,
        role: 'ROLE_PLATFORM_ADMIN',
        mfaVerified: true,
      },
    );
    assert.deepEqual(
      figures.recentAudit.map((entry) => entry.id),
      newest,
    );
    assert.equal(figures.recentAudit[0]?.action, 'test.event_11');
  });
});
