import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('health and readiness', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('when /health is asked, then it reports the database kind, version, vector support and vector schema', async () => {
    const res = await t.http.get('/health').expect(200);
    const expectedKind = process.env.DATABASE_URL ? 'postgresql' : 'pglite';
    assert.equal(res.body.status, 'ok');
    assert.equal(res.body.database.kind, expectedKind);
    assert.match(res.body.database.version, /^\d+/);
    // PGlite ships pgvector; the machine's PostgreSQL server does not.
    assert.equal(res.body.vector, expectedKind === 'pglite' ? true : t.db.vector);
    // The library's passages declare the one vector column: ready with pgvector, pending (keyword search) without.
    assert.deepEqual(
      res.body.vectorSchema,
      res.body.vector
        ? { extension: 'installed', state: 'ready', pending: [] }
        : { extension: 'absent', state: 'unavailable', pending: ['resource_passages.embedding'] },
    );
    assert.equal(res.body.search, res.body.vector ? 'semantic' : 'keyword');
    assert.ok(res.headers['x-request-id']);
  });

  it('when /ready is asked, then it answers ready', async () => {
    const res = await t.http.get('/ready').expect(200);
    assert.deepEqual(res.body, { status: 'ready' });
  });

  it('when a sane X-Request-Id is sent, then it is echoed; an unsafe one is replaced', async () => {
    const echoed = await t.http.get('/ready').set('X-Request-Id', 'abc-123.trace').expect(200);
    assert.equal(echoed.headers['x-request-id'], 'abc-123.trace');
    const replaced = await t.http.get('/ready').set('X-Request-Id', 'bad id <script>').expect(200);
    assert.notEqual(replaced.headers['x-request-id'], 'bad id <script>');
    assert.match(replaced.headers['x-request-id'], /^[0-9a-f-]{36}$/);
  });
});
