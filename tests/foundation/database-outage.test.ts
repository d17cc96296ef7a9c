// The database becomes unreachable under a running service (a restart, a failover): requests answer
// 503 problem+json with Retry-After instead of 500s, /ready says not ready, and once the database
// answers again the service serves as before without a restart. The outage is made where Sequelize
// meets it: its connection manager refuses new connections as the pg dialect does on ECONNREFUSED,
// and connections already held lose the server mid-query ("Connection terminated unexpectedly").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConnectionRefusedError } from 'sequelize';
import { bearer, buildApiKey, buildOrganization } from '../factories/index.ts';
import { buildMember } from '../factories/records.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('the database goes away under a running service', () => {
  let t: TestApp;
  let key: string;

  before(async () => {
    t = await startTestApp();
    const organization = await buildOrganization();
    await buildMember(organization.id);
    key = (await buildApiKey(organization.id)).secret;
  });
  after(async () => {
    await t?.close();
  });

  /** Until the returned function runs, the database is down as PostgreSQL being down looks to the pool. */
  function outage(kind: 'refused' | 'terminated'): () => void {
    const manager = t.db.sequelize.connectionManager as unknown as {
      getConnection: (...args: unknown[]) => Promise<unknown>;
    };
    const original = manager.getConnection;
    manager.getConnection = async () => {
      // what Sequelize's pg dialect throws when nothing listens
      if (kind === 'refused')
        throw new ConnectionRefusedError(
          Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
        );
      // a pooled connection whose server went away: pg fails every query on it so
      return {
        query: async () => {
          throw new Error('Connection terminated unexpectedly');
        },
      };
    };
    return () => {
      manager.getConnection = original;
    };
  }

  for (const kind of ['refused', 'terminated'] as const) {
    it(`when connections are ${kind}, requests answer 503 with Retry-After, /ready is not ready, and it recovers by itself`, async () => {
      const restore = outage(kind);
      try {
        const down = await t.http.get('/api/members?itemsPerPage=5&lastName=Nobody').set(bearer(key));
        assert.equal(down.status, 503, down.text);
        assert.match(down.headers['content-type'], /application\/problem\+json/);
        assert.equal(down.body.code, 'service_unavailable');
        assert.equal(down.headers['retry-after'], '5');
        const ready = await t.http.get('/ready');
        assert.equal(ready.status, 503);
      } finally {
        restore();
      }
      await t.http.get('/ready').expect(200);
      const back = await t.http.get('/api/members?itemsPerPage=5').set(bearer(key)).expect(200);
      assert.equal(back.body.pagination.totalItems, 1);
    });
  }
});
