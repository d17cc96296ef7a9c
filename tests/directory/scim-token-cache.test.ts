// The SCIM token lookup is remembered briefly (every SCIM request resolves it): a revocation made
// through this instance takes effect at once, one made elsewhere (another instance, here a direct
// write to the table that no model hook sees) within the platform's 2-second bound.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, buildUser, mfaVerifiedTokenFor } from '../factories/index.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { addDirectory, expectScim, expectScimError, scimClient } from './fixtures/scim-client.ts';

describe('SCIM token cache', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('when the token is revoked through the API, then the next SCIM request is refused', async () => {
    const directory = await addDirectory(t);
    const scim = scimClient(t, directory.token);
    expectScim(await scim.get('/Users'), 200);
    const platformToken = await mfaVerifiedTokenFor(t, await buildUser({ role: 'ROLE_PLATFORM_ADMIN' }));
    const revoked = await t.http.delete(`/api/admin/directories/${directory.id}/token`).set(bearer(platformToken));
    assert.equal(revoked.status, 200, revoked.text);
    expectScimError(await scim.get('/Users'), 401);
  });

  it('when another instance deactivates the directory, then its token is refused within 2 seconds', async () => {
    const directory = await addDirectory(t);
    const scim = scimClient(t, directory.token);
    expectScim(await scim.get('/Users'), 200);
    await t.container.sql.query("UPDATE directories SET status = 'inactive' WHERE id = $1", [directory.id]);
    expectScim(await scim.get('/Users'), 200); // still remembered here: within the bound
    t.clock.advance(2_000);
    expectScimError(await scim.get('/Users'), 401);
  });
});
