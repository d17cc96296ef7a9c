import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { totpCode } from '../../src/modules/auth/mfa.ts';
import { User } from '../../src/modules/users/user.model.ts';
import { PASSWORD, bearer, buildUser, tokenFor } from '../factories/index.ts';
import { mfaSecretOf, mfaTokenFor } from '../factories/mfa.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('login, tokens and MFA', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { LOGIN_MAX_FAILURES: '3', LOGIN_THROTTLE_SECONDS: '600' } });
  });
  after(() => t.close());

  it('when an active user logs in, then a JWT carries roles and organization and lastLoginAt is recorded', async () => {
    const user = await buildUser({ role: 'ROLE_CLIENT_USER', email: 'Mixed.Case@Example.test' });
    const res = await t.http
      .post('/api/auth/login')
      .send({ email: 'mixed.case@example.test', password: PASSWORD })
      .expect(200);
    assert.equal(res.body.tokenType, 'Bearer');
    assert.equal(res.body.mfaVerified, false);
    assert.equal(res.body.user.id, user.id);
    assert.equal(res.body.user.passwordHash, undefined);
    const claims = decodeJwt(res.body.accessToken);
    assert.equal(claims.sub, user.id);
    assert.deepEqual(claims.roles, ['ROLE_CLIENT_USER']);
    assert.equal(claims.org, user.organizationId);
    await user.reload();
    assert.ok(user.lastLoginAt);
    const me = await t.http.get('/api/auth/me').set(bearer(res.body.accessToken)).expect(200);
    assert.equal(me.body.email, 'Mixed.Case@Example.test');
    assert.ok(me.body.lastLoginAt);
  });

  it('when the password is wrong or the account unknown, then 401 invalid_credentials', async () => {
    const user = await buildUser();
    expectProblem(
      await t.http.post('/api/auth/login').send({ email: user.email, password: 'nope' }),
      401,
      'invalid_credentials',
    );
    expectProblem(
      await t.http.post('/api/auth/login').send({ email: 'ghost@example.test', password: 'nope' }),
      401,
      'invalid_credentials',
    );
  });

  for (const status of ['inactive', 'suspended', 'pending'] as const) {
    it(`when a ${status} user logs in with the right password, then 403 account_inactive`, async () => {
      const user = await buildUser({ status });
      const body = expectProblem(
        await t.http.post('/api/auth/login').send({ email: user.email, password: PASSWORD }),
        403,
        'account_inactive',
      );
      assert.match(body.detail, new RegExp(status));
    });
  }

  it('when a user is suspended after logging in, then the old token stops working', async () => {
    const user = await buildUser();
    const token = await tokenFor(t, user);
    await t.http.get('/api/auth/me').set(bearer(token)).expect(200);
    await user.update({ status: 'suspended' });
    expectProblem(await t.http.get('/api/auth/me').set(bearer(token)), 401, 'unauthenticated');
  });

  it('when a token is past its expiry, then 401 token_expired', async () => {
    const user = await buildUser();
    const token = await tokenFor(t, user);
    t.clock.advance(t.config.jwtTtlSeconds * 1000 + 1000);
    try {
      expectProblem(await t.http.get('/api/auth/me').set(bearer(token)), 401, 'token_expired');
    } finally {
      t.clock.advance(-(t.config.jwtTtlSeconds * 1000 + 1000));
    }
  });

  it('when a token is tampered with or the scheme is not Bearer, then 401', async () => {
    const token = await tokenFor(t, await buildUser());
    // the signature's first character carries six whole bits: changing it always changes the signature
    // (its last character carries padding bits too, so rewriting the tail may decode to the same bytes)
    const at = token.lastIndexOf('.') + 1;
    const tampered = `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    expectProblem(await t.http.get('/api/auth/me').set(bearer(tampered)), 401, 'unauthenticated');
    expectProblem(await t.http.get('/api/auth/me').set('Authorization', `Basic ${token}`), 401, 'unauthenticated');
    expectProblem(await t.http.get('/api/auth/me'), 401, 'unauthenticated');
  });

  it('when failures for one e-mail reach the limit, then login answers 429 with Retry-After, even with the right password', async () => {
    const user = await buildUser();
    for (let i = 0; i < 3; i++) {
      expectProblem(
        await t.http.post('/api/auth/login').send({ email: user.email, password: 'wrong' }),
        401,
        'invalid_credentials',
      );
    }
    const res = await t.http.post('/api/auth/login').send({ email: user.email, password: PASSWORD });
    expectProblem(res, 429, 'login_throttled');
    assert.ok(Number(res.headers['retry-after']) > 0);
    t.clock.advance(600_000);
    await t.http.post('/api/auth/login').send({ email: user.email, password: PASSWORD }).expect(200);
  });

  it('when a user enrols in MFA and verifies a code, then the token is MFA-verified and login needs otp', async () => {
    const user = await buildUser();
    const token = await tokenFor(t, user);
    const enrolment = await t.http.post('/api/auth/mfa/enrollment').set(bearer(token)).expect(201);
    assert.match(enrolment.body.otpauthUri, /^otpauth:\/\/totp\//);
    const stored = await User.findByPk(user.id);
    assert.ok(stored!.mfaSecret && !stored!.mfaSecret.includes(enrolment.body.secret), 'the seed is sealed at rest');
    // an enrolment not yet confirmed by a code does not lock the user out
    const unconfirmed = await t.http.post('/api/auth/login').send({ email: user.email, password: PASSWORD });
    assert.equal(unconfirmed.status, 200);
    assert.equal(unconfirmed.body.mfaVerified, false);

    expectProblem(
      await t.http
        .post('/api/auth/mfa/verify')
        .set(bearer(token))
        .send({ code: '000000' === totpCode(enrolment.body.secret, t.clock.now()) ? '111111' : '000000' }),
      401,
      'invalid_mfa_code',
    );
    const verified = await t.http
      .post('/api/auth/mfa/verify')
      .set(bearer(token))
      .send({ code: totpCode(enrolment.body.secret, t.clock.now()) })
      .expect(200);
    assert.equal(verified.body.mfaVerified, true);
    assert.deepEqual(decodeJwt(verified.body.accessToken).amr, ['pwd', 'otp']);
    assert.equal(verified.body.user.mfaEnabled, true);

    expectProblem(await t.http.post('/api/auth/mfa/enrollment').set(bearer(token)), 409, 'mfa_already_enabled');
    t.clock.advance(30_000); // a code is accepted once: the next one
    const login = await t.http
      .post('/api/auth/login')
      .send({ email: user.email, password: PASSWORD, otp: totpCode(enrolment.body.secret, t.clock.now()) })
      .expect(200);
    assert.equal(login.body.mfaVerified, true);
    assert.deepEqual(decodeJwt(login.body.accessToken).amr, ['pwd', 'otp']);
    // a token from before the enrolment (password only) is still stepped up by /mfa/verify
    t.clock.advance(30_000);
    const steppedUp = await t.http
      .post('/api/auth/mfa/verify')
      .set(bearer(token))
      .send({ code: totpCode(enrolment.body.secret, t.clock.now()) })
      .expect(200);
    assert.equal(steppedUp.body.mfaVerified, true);
  });

  it('when a user with MFA enabled logs in with the password alone, then 401 invalid_mfa_code naming otp', async () => {
    const user = await buildUser();
    await mfaTokenFor(t, user);
    const login = (body: object) =>
      t.http.post('/api/auth/login').send({ email: user.email, password: PASSWORD, ...body });
    t.clock.advance(1000); // so a login recorded now would change lastLoginAt
    const before = (await User.findByPk(user.id))!.lastLoginAt;
    // LOGIN_MAX_FAILURES is 3: as many refusals for a missing code are not failed attempts, the login stays open
    for (let i = 0; i < 3; i++) {
      const body = expectProblem(await login({}), 401, 'invalid_mfa_code');
      assert.match(body.detail, /one-time code/);
      assert.match(body.detail, /`otp`/);
      assert.equal(body.accessToken, undefined);
    }
    assert.deepEqual((await User.findByPk(user.id))!.lastLoginAt, before, 'a refused login is not recorded as one');
    const code = totpCode(mfaSecretOf(user)!, t.clock.now());
    expectProblem(await login({ otp: code === '000000' ? '111111' : '000000' }), 401, 'invalid_mfa_code');
    // a wrong password still says so: the code is asked for only once the password is right
    expectProblem(await login({ password: 'wrong' }), 401, 'invalid_credentials');
    const verified = await login({ otp: code }).expect(200);
    assert.equal(verified.body.mfaVerified, true);
  });

  it('when the login body is malformed, then the validator names the fields', async () => {
    const body = expectProblem(
      await t.http.post('/api/auth/login').send({ email: 'not-an-email' }),
      400,
      'validation_failed',
    );
    const fields = body.errors.map((e: { field: string }) => e.field).sort();
    assert.deepEqual(fields, ['email', 'password']);
    assert.match(body.detail, /email/);
  });
});
