// MFA-verified tokens: the first for a user through the real endpoints (enrolment, then verify with a
// current code); later ones minted with the claims a login with a valid code gives (mfaVerifiedTokenFor).
import { totpCode } from '../../src/modules/auth/mfa.ts';
import type { User } from '../../src/modules/users/user.model.ts';
import type { TestApp } from '../setup/test-app.ts';
import { bearer, buildUser, mfaVerifiedTokenFor, tokenFor } from './index.ts';

const secrets = new Map<string, string>();

export async function mfaTokenFor(t: TestApp, user: User): Promise<string> {
  if (secrets.has(user.id)) {
    return mfaVerifiedTokenFor(t, user);
  }
  const token = await tokenFor(t, user);
  const enrolment = await t.http.post('/api/auth/mfa/enrollment').set(bearer(token));
  if (enrolment.status !== 201)
    throw new Error(`MFA enrolment failed: ${enrolment.status} ${JSON.stringify(enrolment.body)}`);
  secrets.set(user.id, enrolment.body.secret);
  // A code is accepted once (RFC 6238 §5.2): confirm with the previous step's code (inside the
  // drift window), so the current one is left for the login a test does next.
  const previousStep = new Date(t.clock.now().getTime() - 30_000);
  const verified = await t.http
    .post('/api/auth/mfa/verify')
    .set(bearer(token))
    .send({ code: totpCode(enrolment.body.secret, previousStep) });
  if (verified.status !== 200)
    throw new Error(`MFA verify failed: ${verified.status} ${JSON.stringify(verified.body)}`);
  return verified.body.accessToken as string;
}

/** The user's TOTP secret, once mfaTokenFor has enrolled them (the portal login needs a code). */
export const mfaSecretOf = (user: User): string | undefined => secrets.get(user.id);

/**
 * A platform admin with a plain token and an MFA-verified one. The plain token is taken before the
 * enrolment (once MFA is enabled a login without the code is refused): a session that needs step-up.
 */
export async function buildAdmin(
  t: TestApp,
  overrides: Parameters<typeof buildUser>[0] = {},
): Promise<{ admin: User; token: string; mfaToken: string }> {
  const admin = await buildUser({ role: 'ROLE_PLATFORM_ADMIN', ...overrides });
  const token = await tokenFor(t, admin);
  const mfaToken = await mfaTokenFor(t, admin);
  return { admin, token, mfaToken };
}
