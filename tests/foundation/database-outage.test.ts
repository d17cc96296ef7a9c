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
  let organizationId: string;

  before(async () => {
    t = await startTestApp();
    organizationId = (await buildOrganization()).id;
    await buildMember(organizationId);
    key = (await buildApiKey(organizationId)).secret;
  });
  after(async () => {
    await t?.close();
  });

  /** Until the returned function runs, the database is down as PostgreSQL being down looks to the pool. */
  function outage(kind: 'refused' | 'terminated'): () => void {
    type Manager = {
      getConnection: (...args: unknown[]) => Promise<unknown>;
      releaseConnection: (connection: unknown) => unknown;
    };
    const manager = t.db.sequelize.connectionManager as unknown as Manager;
    const { getConnection, releaseConnection } = manager;
    // a pooled connection whose server went away: pg fails every query on it so, in both of its call styles
    // (Sequelize's models pass a callback, Sql awaits the promise)
    const lost = {
      query(...args: unknown[]) {
        const error = new Error('Connection terminated unexpectedly');
        const callback = args.find((arg): arg is (error: Error) => void => typeof arg === 'function');
        if (!callback) return Promise.reject(error);
        setImmediate(() => callback(error));
        return undefined;
      },
    };
    manager.getConnection = async () => {
      // what Sequelize's pg dialect throws when nothing listens
      if (kind === 'refused') {
        throw new ConnectionRefusedError(
          Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
        );
      }
      return lost;
    };
    manager.releaseConnection = (connection) =>
      connection === lost ? undefined : releaseConnection.call(manager, connection);
    return () => {
      manager.getConnection = getConnection;
      manager.releaseConnection = releaseConnection;
    };
  }

  for (const kind of ['refused', 'terminated'] as const) {
    it(`when connections are ${kind}, requests answer 503 with Retry-After, /ready is not ready, and it recovers by itself`, async () => {
      // a key just used is remembered (2 s), so its request meets the outage in the list's query; a key
      // not seen yet meets it in the credential's lookup
      await t.http.get('/api/members?itemsPerPage=1').set(bearer(key)).expect(200);
      const unseen = (await buildApiKey(organizationId)).secret;
      const restore = outage(kind);
      try {
        for (const credential of [key, unseen]) {
          const down = await t.http.get('/api/members?itemsPerPage=5&lastName=Nobody').set(bearer(credential));
          assert.equal(down.status, 503, down.text);
          assert.match(down.headers['content-type'], /application\/problem\+json/);
          assert.equal(down.body.code, 'service_unavailable');
          assert.equal(down.headers['retry-after'], '5');
        }
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
