// SCIM's own budget: per directory and per minute (SCIM_RATE_LIMIT_PER_MINUTE), counted in the shared
// limiter; past it a SCIM error 429 with Retry-After, and another directory keeps its own budget.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { addDirectory, expectScim, expectScimError, scimClient } from './fixtures/scim-client.ts';

describe('SCIM rate limit', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ env: { SCIM_RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_STANDARD: '1' } });
  });
  after(() => t.close());

  it('when a directory spends its minute, then SCIM answers 429 with Retry-After until the next one', async () => {
    t.clock.set(new Date('2026-11-27T10:00:05Z'));
    const busy = scimClient(t, (await addDirectory(t)).token);
    for (let i = 0; i < 5; i++) {
      const res = await busy.get('/Users');
      expectScim(res, 200);
      assert.equal(res.headers['x-ratelimit-remaining'], String(4 - i));
    }
    const refused = await busy.get('/Users');
    const body = expectScimError(refused, 429);
    assert.match(body.detail, /5 SCIM requests per minute/);
    assert.equal(refused.headers['retry-after'], '55');

    const other = scimClient(t, (await addDirectory(t)).token);
    expectScim(await other.get('/ServiceProviderConfig'), 200);

    t.clock.advance(55_000);
    expectScim(await busy.get('/Users'), 200);
  });
});
