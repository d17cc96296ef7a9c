import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { bearer, buildApiKey, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { Member } from '../../src/modules/members/member.model.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('tenant isolation', () => {
  let t: TestApp;
  let orgA: string;
  let orgB: string;
  let keyB: string;
  before(async () => {
    t = await startTestApp();
    orgA = (await buildOrganization()).id;
    orgB = (await buildOrganization()).id;
    await buildApiKey(orgA);
    keyB = (await buildApiKey(orgB)).apiKey.id;
  });
  after(() => t.close());

  it('when a client admin, a member or an API key names another organization in the header, then 403 naming it, and nothing is written', async () => {
    const adminA = await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: orgA });
    const memberA = await buildUser({ role: 'ROLE_MEMBER', organizationId: orgA });
    const keyA = await buildApiKey(orgA);
    const credentials = [bearer(await tokenFor(t, adminA)), bearer(await tokenFor(t, memberA)), bearer(keyA.secret)];
    const member = { firstName: 'Wrong', lastName: 'Tenant', email: 'wrong.tenant@example.test' };
    for (const credential of credentials) {
      for (const res of [
        await t.http.get('/api/api-keys').set(credential).set('Guildhall-Organization', orgB),
        await t.http.post('/api/members').set(credential).set('Guildhall-Organization', orgB).send(member),
        await t.http.get('/api/members').set(credential).set('Guildhall-Organization', 'not-a-uuid'),
      ]) {
        const body = expectProblem(res, 403, 'forbidden');
        assert.deepEqual(
          body.errors.map((e: { field: string }) => e.field),
          ['Guildhall-Organization'],
        );
      }
    }
    assert.equal(
      await Member.count({ where: { email: member.email } }),
      0,
      'no member was created in either organization',
    );
    // naming its own organization (in any case) is what it does anyway
    const own = await t.http
      .get('/api/api-keys')
      .set(bearer(await tokenFor(t, adminA)))
      .set('Guildhall-Organization', orgA.toUpperCase())
      .expect(200);
    assert.equal(own.body.data.length, 2);
    assert.ok(!own.body.data.some((k: { id: string }) => k.id === keyB));
  });

  it('when a platform admin acts without naming an organization, then tenant operations refuse with 422', async () => {
    const admin = await buildUser({ role: 'ROLE_PLATFORM_ADMIN' });
    const body = expectProblem(
      await t.http.get('/api/api-keys').set(bearer(await tokenFor(t, admin))),
      422,
      'unprocessable',
    );
    assert.match(body.detail, /Guildhall-Organization/);
  });

  it('when a platform admin calls /api/members naming no organization, then the 422 names the header', async () => {
    const token = await tokenFor(t, await buildUser({ role: 'ROLE_PLATFORM_ADMIN' }));
    const member = { firstName: 'Tenant', lastName: 'Less', email: 'tenant.less@example.test' };
    for (const res of [
      await t.http.get('/api/members').set(bearer(token)),
      await t.http.get('/api/members').set(bearer(token)).set('Accept', 'text/csv'),
      await t.http.get(`/api/members/${randomUUID()}`).set(bearer(token)),
      await t.http.post('/api/members').set(bearer(token)).send(member),
    ]) {
      const body = expectProblem(res, 422, 'unprocessable');
      assert.match(body.detail, /Guildhall-Organization header/);
      assert.deepEqual(
        body.errors.map((e: { field: string }) => e.field),
        ['Guildhall-Organization'],
      );
    }
    await t.http.get('/api/members').set(bearer(token)).set('Guildhall-Organization', orgA).expect(200);
  });

  it('when a platform admin names an organization explicitly, then they see that organization only', async () => {
    const admin = await buildUser({ role: 'ROLE_PLATFORM_ADMIN' });
    const token = await tokenFor(t, admin);
    const res = await t.http.get('/api/api-keys').set(bearer(token)).set('Guildhall-Organization', orgB).expect(200);
    assert.deepEqual(
      res.body.data.map((k: { id: string }) => k.id),
      [keyB],
    );
    expectProblem(
      await t.http.get('/api/api-keys').set(bearer(token)).set('Guildhall-Organization', randomUUID()),
      400,
      'validation_failed',
    );
  });
});
