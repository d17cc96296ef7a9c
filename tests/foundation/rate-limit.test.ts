import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { createApp } from '../../src/app.ts';
import { createContainer } from '../../src/container.ts';
import { createLogger } from '../../src/shared/logger.ts';
import type { Plan } from '../../src/config.ts';
import { bearer, buildApiKey, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

const LIMITS: Record<Plan, number> = { standard: 3, professional: 5, enterprise: 7 };
const env = {
  RATE_LIMIT_STANDARD: String(LIMITS.standard),
  RATE_LIMIT_PROFESSIONAL: String(LIMITS.professional),
  RATE_LIMIT_ENTERPRISE: String(LIMITS.enterprise),
  // a prefix of its own, so parallel runs sharing the Redis never see each other's counters
  ...(process.env.TEST_REDIS_URL
    ? { REDIS_URL: process.env.TEST_REDIS_URL, REDIS_KEY_PREFIX: `test-${randomUUID()}:` }
    : {}),
};

describe(`per-plan hourly rate limits (${process.env.TEST_REDIS_URL ? 'Redis' : 'PostgreSQL'} counters)`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env });
  });
  after(() => t.close());

  async function orgWithToken(plan: Plan) {
    const organization = await buildOrganization({ plan });
    const user = await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: organization.id });
    return { organization, token: await tokenFor(t, user) };
  }

  for (const plan of ['standard', 'professional', 'enterprise'] as const) {
    it(`when a ${plan} organization uses its ${LIMITS[plan]} requests, then the next is 429 with Retry-After until the hour ends`, async () => {
      t.clock.set(new Date('2026-03-02T10:15:00Z'));
      const { token } = await orgWithToken(plan);
      for (let i = 1; i <= LIMITS[plan]; i++) {
        const res = await t.http.get('/api/api-keys').set(bearer(token)).expect(200);
        assert.equal(res.headers['x-ratelimit-limit'], String(LIMITS[plan]));
        assert.equal(res.headers['x-ratelimit-remaining'], String(LIMITS[plan] - i));
        assert.equal(res.headers['x-ratelimit-reset'], String(Date.parse('2026-03-02T11:00:00Z') / 1000));
        assert.equal(res.headers['ratelimit-policy'], `"hourly";q=${LIMITS[plan]};w=3600`);
        assert.equal(res.headers.ratelimit, `"hourly";r=${LIMITS[plan] - i};t=2700`);
      }
      const limited = await t.http.get('/api/api-keys').set(bearer(token));
      const body = expectProblem(limited, 429, 'rate_limited');
      assert.equal(limited.headers['retry-after'], '2700');
      assert.equal(limited.headers.ratelimit, `"hourly";r=0;t=2700`);
      assert.equal(limited.headers['ratelimit-policy'], `"hourly";q=${LIMITS[plan]};w=3600`);
      assert.equal(limited.headers['x-ratelimit-remaining'], '0');
      assert.match(body.detail, new RegExp(`${plan} plan allows ${LIMITS[plan]} requests per hour`));

      t.clock.set(new Date('2026-03-02T11:00:01Z'));
      const next = await t.http.get('/api/api-keys').set(bearer(token)).expect(200);
      assert.equal(next.headers['x-ratelimit-remaining'], String(LIMITS[plan] - 1));
    });
  }

  it('when API keys and users of one organization call, then they share its quota, and other organizations are unaffected', async () => {
    t.clock.set(new Date('2026-03-03T08:00:00Z'));
    const { organization, token } = await orgWithToken('standard');
    const { secret } = await buildApiKey(organization.id);
    await t.http.get('/api/api-keys').set(bearer(token)).expect(200);
    await t.http.get('/api/members').set(bearer(secret)).expect(200);
    await t.http.get('/api/api-keys').set(bearer(token)).expect(200);
    expectProblem(await t.http.get('/api/members').set(bearer(secret)), 429, 'rate_limited');
    // health and readiness take no credential: one sent is neither checked nor counted, even over quota
    for (const probe of ['/health', '/ready']) {
      const res = await t.http.get(probe).set(bearer(secret)).expect(200);
      assert.equal(res.headers['x-ratelimit-remaining'], undefined, probe);
      await t.http.get(probe).set(bearer('not-a-credential')).expect(200);
    }
    const other = await orgWithToken('standard');
    await t.http.get('/api/api-keys').set(bearer(other.token)).expect(200);
  });

  it('when an organization is over quota, then operations that take no credential still answer to its leftover header', async () => {
    t.clock.set(new Date('2026-03-04T08:00:00Z'));
    const { organization, token } = await orgWithToken('standard');
    const user = await buildUser({ organizationId: organization.id, password: 'right-password-123' });
    for (let i = 0; i < LIMITS.standard; i++) await t.http.get('/api/api-keys').set(bearer(token)).expect(200);
    expectProblem(await t.http.get('/api/api-keys').set(bearer(token)), 429, 'rate_limited');
    // login, the password reset and the public catalogue are not counted against an organization
    const login = await t.http
      .post('/api/auth/login')
      .set(bearer(token))
      .send({ email: user.email, password: 'right-password-123' })
      .expect(200);
    assert.equal(login.headers['x-ratelimit-remaining'], undefined);
    const reset = await t.http
      .post('/api/auth/password-reset')
      .set(bearer(token))
      .send({ token: 'no-such-reset-token', password: 'another-password-123' });
    expectProblem(reset, 422, 'invalid_reset_token');
    const catalogue = await t.http
      .get(`/api/public/organizations/${organization.slug}/resources`)
      .set(bearer(token))
      .expect(200);
    // the per-address limit's headers, not the organization's
    assert.notEqual(catalogue.headers['x-ratelimit-limit'], String(LIMITS.standard));
    expectProblem(await t.http.get('/api/api-keys').set(bearer(token)), 429, 'rate_limited');
  });

  it('when two instances of the service share the database, then they share the counter', async () => {
    t.clock.set(new Date('2026-03-04T08:00:00Z'));
    const second = createContainer({
      config: t.config,
      logger: createLogger('silent'),
      db: t.db,
      clock: t.clock,
      appSecret: t.config.appSecret!,
    });
    const secondApp = supertest(createApp(second));
    try {
      const { token } = await orgWithToken('standard');
      await t.http.get('/api/api-keys').set(bearer(token)).expect(200);
      await secondApp.get('/api/api-keys').set(bearer(token)).expect(200);
      await t.http.get('/api/api-keys').set(bearer(token)).expect(200);
      expectProblem(await secondApp.get('/api/api-keys').set(bearer(token)), 429, 'rate_limited');
    } finally {
      await second.close();
    }
  });

  it('when a request is unauthenticated, then it carries no organization quota headers', async () => {
    const res = await t.http.get('/health').expect(200);
    assert.equal(res.headers['x-ratelimit-limit'], undefined);
  });
});
