// Guessing and replaying second factors: the login throttle counts wrong one-time codes at the
// step-up too, over a sliding window, and an accepted code is not accepted again (RFC 6238 §5.2).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { totpCode } from '../../src/modules/auth/mfa.ts';
import type { User } from '../../src/modules/users/user.model.ts';
import { PASSWORD, bearer, buildUser, tokenFor } from '../factories/index.ts';
import { mfaSecretOf, mfaTokenFor } from '../factories/mfa.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

const STEP_MS = 30_000;
const WINDOW_SECONDS = 600;

describe('login throttle and one-time codes', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { LOGIN_MAX_FAILURES: '3', LOGIN_THROTTLE_SECONDS: String(WINDOW_SECONDS) } });
  });
  after(() => t.close());

  /** A code valid for none of the steps the drift window accepts now. */
  const wrongCode = (secret: string) => {
    const valid = [-1, 0, 1].map((step) => totpCode(secret, new Date(t.clock.now().getTime() + step * STEP_MS)));
    return ['000000', '111111', '222222', '333333'].find((code) => !valid.includes(code))!;
  };
  const login = (user: User, body: object = {}) =>
    t.http.post('/api/auth/login').send({ email: user.email, password: PASSWORD, ...body });

  /** A user with MFA enabled, and a token from before the enrolment (one that still needs step-up). */
  async function enrolled(): Promise<{ user: User; secret: string; token: string }> {
    const user = await buildUser();
    const token = await tokenFor(t, user);
    await mfaTokenFor(t, user);
    // the enrolment used up a code: start from a step of our own
    t.clock.advance(STEP_MS);
    return { user, secret: mfaSecretOf(user)!, token };
  }

  it('when wrong codes at mfa/verify reach LOGIN_MAX_FAILURES, then 429 with Retry-After, even for the right code, and the login is closed too', async () => {
    const { user, secret, token } = await enrolled();
    const verify = (code: string) => t.http.post('/api/auth/mfa/verify').set(bearer(token)).send({ code });
    for (let i = 0; i < 3; i++) expectProblem(await verify(wrongCode(secret)), 401, 'invalid_mfa_code');
    const refused = await verify(totpCode(secret, t.clock.now()));
    expectProblem(refused, 429, 'login_throttled');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    // one count per user: the guesses at the step-up close the password login as well
    expectProblem(await login(user, { otp: totpCode(secret, t.clock.now()) }), 429, 'login_throttled');

    t.clock.advance(WINDOW_SECONDS * 1000);
    const verified = await verify(totpCode(secret, t.clock.now())).expect(200);
    assert.equal(verified.body.mfaVerified, true);
  });

  it('when wrong passwords or codes arrive all at once, then only LOGIN_MAX_FAILURES of them are checked; the rest are 429', async () => {
    const codes = (answers: Array<{ status: number }>) => answers.map((res) => res.status).sort();
    const user = await buildUser();
    const guesses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.http.post('/api/auth/login').send({ email: user.email, password: `wrong-password-${i}` }),
      ),
    );
    assert.deepEqual(codes(guesses), [...Array(3).fill(401), ...Array(9).fill(429)]);
    expectProblem(await login(user), 429, 'login_throttled'); // the right password waits for the window too

    const { secret, token } = await enrolled();
    const wrong = wrongCode(secret);
    const codeGuesses = await Promise.all(
      Array.from({ length: 10 }, () => t.http.post('/api/auth/mfa/verify').set(bearer(token)).send({ code: wrong })),
    );
    assert.deepEqual(codes(codeGuesses), [...Array(3).fill(401), ...Array(7).fill(429)]);
    t.clock.advance(WINDOW_SECONDS * 1000);
    await login(user).expect(200);
  });

  it('when the password is right but the login is refused for another reason, then it is not counted as a failed guess', async () => {
    const user = await buildUser({ status: 'suspended' });
    for (let i = 0; i < 5; i++) expectProblem(await login(user), 403, 'account_inactive');
    const { user: enrolledUser } = await enrolled();
    for (let i = 0; i < 5; i++) expectProblem(await login(enrolledUser), 401, 'invalid_mfa_code'); // the code is missing
    await user.update({ status: 'active' });
    await login(user).expect(200);
    expectProblem(await login(enrolledUser, { password: 'wrong' }), 401, 'invalid_credentials');
  });

  it('when wrong codes at login and at mfa/verify add up to the limit, then both answer 429', async () => {
    const { user, secret, token } = await enrolled();
    expectProblem(await login(user, { otp: wrongCode(secret) }), 401, 'invalid_mfa_code');
    expectProblem(await login(user, { otp: wrongCode(secret) }), 401, 'invalid_mfa_code');
    expectProblem(
      await t.http
        .post('/api/auth/mfa/verify')
        .set(bearer(token))
        .send({ code: wrongCode(secret) }),
      401,
      'invalid_mfa_code',
    );
    expectProblem(
      await t.http
        .post('/api/auth/mfa/verify')
        .set(bearer(token))
        .send({ code: totpCode(secret, t.clock.now()) }),
      429,
      'login_throttled',
    );
    t.clock.advance(WINDOW_SECONDS * 1000);
  });

  it('when a code was accepted, then the same code is refused at login and at mfa/verify, and the next step is accepted', async () => {
    const { user, secret, token } = await enrolled();
    const code = totpCode(secret, t.clock.now());
    await login(user, { otp: code }).expect(200);
    expectProblem(await login(user, { otp: code }), 401, 'invalid_mfa_code');
    expectProblem(await t.http.post('/api/auth/mfa/verify').set(bearer(token)).send({ code }), 401, 'invalid_mfa_code');
    t.clock.advance(STEP_MS);
    await login(user, { otp: totpCode(secret, t.clock.now()) }).expect(200);
    t.clock.advance(WINDOW_SECONDS * 1000); // the replays counted as failures
  });

  it('when a code of the previous step is used, then it is accepted (clock drift) unless a newer step was already used', async () => {
    const { user, secret } = await enrolled();
    const previous = totpCode(secret, new Date(t.clock.now().getTime() - STEP_MS));
    const current = totpCode(secret, t.clock.now());
    if (previous === current) return; // one chance in a million: nothing to tell apart
    await login(user, { otp: previous }).expect(200);
    await login(user, { otp: current }).expect(200);
    expectProblem(await login(user, { otp: previous }), 401, 'invalid_mfa_code');
    t.clock.advance(WINDOW_SECONDS * 1000);
  });

  it('when failures straddle a window boundary, then they still add up: the lockout slides with the clock', async () => {
    const user = await buildUser();
    // 8 seconds before a multiple of the window, where a fixed window would start afresh
    const size = WINDOW_SECONDS * 1000;
    const boundary = Math.ceil((t.clock.now().getTime() + 60_000) / size) * size;
    t.clock.set(new Date(boundary - 8000));
    const wrong = () => login(user, { password: 'wrong' });
    expectProblem(await wrong(), 401, 'invalid_credentials');
    expectProblem(await wrong(), 401, 'invalid_credentials');
    t.clock.advance(10_000); // 2 s past the boundary
    expectProblem(await wrong(), 401, 'invalid_credentials');
    const refused = await login(user);
    expectProblem(refused, 429, 'login_throttled');
    // open again when the oldest failure leaves the window, 600 s after it
    assert.equal(Number(refused.headers['retry-after']), WINDOW_SECONDS - 10);
    t.clock.advance((WINDOW_SECONDS - 10) * 1000 - 1000);
    expectProblem(await login(user), 429, 'login_throttled');
    t.clock.advance(1000);
    await login(user).expect(200);
  });

  it('when failures are spread over more than the window, then only those within it count', async () => {
    const user = await buildUser();
    const wrong = () => login(user, { password: 'wrong' });
    expectProblem(await wrong(), 401, 'invalid_credentials');
    t.clock.advance(400_000);
    expectProblem(await wrong(), 401, 'invalid_credentials');
    t.clock.advance(300_000); // the first failure is now 700 s old
    expectProblem(await wrong(), 401, 'invalid_credentials');
    expectProblem(await wrong(), 401, 'invalid_credentials');
    expectProblem(await login(user), 429, 'login_throttled');
  });
});
