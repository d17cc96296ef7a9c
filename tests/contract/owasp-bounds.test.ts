// What the OWASP lint made the contract promise (.spectral.yaml, docs/api-conventions.md), checked
// against the running service: bounds refuse input, a full page fits the lists' maxItems, and the
// rate-limit headers are where the contract declares them and absent where the ruleset says so.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, buildApiKey, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

const RATE_LIMIT_HEADERS = [
  'ratelimit-policy',
  'ratelimit',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
];

describe('OWASP contract bounds and headers', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('when an operation without parameters gets an unknown query parameter, then it answers the 400 the contract declares', async () => {
    expectProblem(await t.http.get('/health?verbose=1'), 400, 'invalid_filter');
    const user = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    const res = await t.http.get('/api/auth/me?expand=all').set(bearer(await tokenFor(t, user)));
    expectProblem(res, 400, 'invalid_filter');
    // made for an organization, so the refusal still carries the declared rate-limit headers
    for (const header of RATE_LIMIT_HEADERS) assert.ok(res.headers[header], `${header} on the 400`);
  });

  it('when a query key is named __proto__, plain or bracketed, then it is refused as unknown, not silently dropped', async () => {
    const user = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    const token = await tokenFor(t, user);
    for (const [url, field] of [
      ['/health?__proto__[x]=1', '__proto__[x]'],
      ['/api/auth/me?__proto__=1', '__proto__'],
      ['/api/members?page=1&__proto__%5BitemsPerPage%5D=1000', '__proto__[itemsPerPage]'],
      ['/api/members?order[__proto__]=asc', 'order[__proto__]'],
    ] as const) {
      const body = expectProblem(await t.http.get(url).set(bearer(token)), 400, 'invalid_filter');
      assert.equal(body.errors[0].field, field, url);
    }
    // a key that only contains the word is an ordinary unknown parameter, refused by the contract as before
    expectProblem(await t.http.get('/api/members?x__proto__=1').set(bearer(token)), 400, 'invalid_filter');
    await t.http.get('/api/members?page=1').set(bearer(token)).expect(200);
  });

  it('when the credential is wrong, then the 401 carries no rate-limit headers (the ruleset exempts it)', async () => {
    const res = await t.http.get('/api/api-keys').set(bearer('not-a-token'));
    expectProblem(res, 401, 'unauthenticated');
    for (const header of RATE_LIMIT_HEADERS) assert.equal(res.headers[header], undefined, `${header} on the 401`);
  });

  it('when an anonymous call is answered, then it carries no rate-limit headers', async () => {
    const res = await t.http.get('/ready').expect(200);
    for (const header of RATE_LIMIT_HEADERS) assert.equal(res.headers[header], undefined, `${header} on /ready`);
  });

  it('when a page holds the largest page size, then the response fits the list maxItems', async () => {
    const organization = await buildOrganization();
    const user = await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: organization.id });
    for (let i = 0; i < 100; i++) await buildApiKey(organization.id);
    const res = await t.http
      .get('/api/api-keys?itemsPerPage=100')
      .set(bearer(await tokenFor(t, user)))
      .expect(200);
    assert.equal(res.body.data.length, 100);
    for (const header of RATE_LIMIT_HEADERS) assert.ok(res.headers[header], `${header} on the 200`);
  });

  it('when input exceeds a bound, then the request validator refuses it', async () => {
    const admin = await buildUser({ role: 'ROLE_PLATFORM_ADMIN' });
    const token = await tokenFor(t, admin);
    const everyRole =
      'ROLE_MEMBER,ROLE_CLIENT_USER,ROLE_CLIENT_ADMIN,ROLE_SPONSOR_USER,ROLE_SPONSOR_ADMIN,ROLE_PLATFORM_ADMIN';
    await t.http.get(`/api/admin/users?role=${everyRole}`).set(bearer(token)).expect(200);
    expectProblem(
      await t.http.get(`/api/admin/users?role=${everyRole},ROLE_MEMBER`).set(bearer(token)),
      400,
      'invalid_filter',
    );

    const clientAdmin = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    const clientToken = await tokenFor(t, clientAdmin);
    const tooLong = await t.http
      .post('/api/members')
      .set(bearer(clientToken))
      .send({ firstName: 'A', lastName: 'B', email: 'a@example.test', phone: '1'.repeat(41) });
    expectProblem(tooLong, 400, 'validation_failed');
    assert.ok(tooLong.body.errors.some((e: { field: string }) => e.field === 'phone'));
  });
});
