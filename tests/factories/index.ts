// Records for tests, created directly (fast) with overridable defaults.
import { randomUUID } from 'node:crypto';
import { ApiKey } from '../../src/modules/api-keys/api-key.model.ts';
import { Organization } from '../../src/modules/organizations/organization.model.ts';
import { User } from '../../src/modules/users/user.model.ts';
import type { Plan } from '../../src/config.ts';
import type { Role } from '../../src/shared/access/roles.ts';
import { hashPassword, randomToken, sha256 } from '../../src/shared/crypto.ts';
import type { TestApp } from '../setup/test-app.ts';

export const PASSWORD = 'correct horse battery staple';
let passwordHash: Promise<string> | undefined;

export async function buildOrganization(overrides: Partial<{ name: string; plan: Plan }> = {}): Promise<Organization> {
  const suffix = randomUUID().slice(0, 8);
  return Organization.create({
    name: overrides.name ?? `Org ${suffix}`,
    slug: `org-${suffix}`,
    plan: overrides.plan ?? 'standard',
  });
}

export async function buildUser(
  overrides: Partial<{
    role: Role;
    organizationId: string | null;
    status: User['status'];
    email: string;
    firstName: string;
    lastName: string;
    password: string;
  }> = {},
): Promise<User> {
  const role = overrides.role ?? 'ROLE_CLIENT_ADMIN';
  const organizationId =
    overrides.organizationId !== undefined
      ? overrides.organizationId
      : role === 'ROLE_PLATFORM_ADMIN'
        ? null
        : (await buildOrganization()).id;
  passwordHash ??= hashPassword(PASSWORD);
  return User.create({
    organizationId,
    role,
    firstName: overrides.firstName ?? 'Test',
    lastName: overrides.lastName ?? 'User',
    email: overrides.email ?? `user-${randomUUID().slice(0, 8)}@example.test`,
    status: overrides.status ?? 'active',
    passwordHash: overrides.password ? await hashPassword(overrides.password) : await passwordHash,
  });
}

/** `prefix`: another environment's (gh_test_) stores a key as a hand-set demo key could. */
export async function buildApiKey(
  organizationId: string,
  prefix = 'gh_live_',
): Promise<{ apiKey: ApiKey; secret: string }> {
  const secret = `${prefix}${randomToken(24)}`;
  const apiKey = await ApiKey.create({
    organizationId,
    name: 'test key',
    prefix: secret.slice(0, 12),
    keyHash: sha256(secret),
    createdByUserId: null,
  });
  return { apiKey, secret };
}

/**
 * A bearer token with exactly the claims a password login gives (AuthService.sessionFor, no MFA),
 * minted by the app's own token service: the login's scrypt check costs about 0.1 s of CPU a call and
 * is tested where logging in is the subject (tests/foundation/auth.test.ts, and loginFor below).
 * Refused as the login refuses it for an account that is not active or has MFA enabled.
 */
export async function tokenFor(t: Pick<TestApp, 'container'>, user: User): Promise<string> {
  return (await mintSession(t, user, false)).token;
}

/** As a login with a valid one-time code: a session with mfaVerified true (amr pwd, otp). */
export async function mfaVerifiedTokenFor(t: Pick<TestApp, 'container'>, user: User): Promise<string> {
  return (await mintSession(t, user, true)).token;
}

async function mintSession(t: Pick<TestApp, 'container'>, user: User, mfaVerified: boolean) {
  const current = await User.findByPk(user.id); // the login reads the account as it is now
  if (!current) throw new Error(`no such user: ${user.email}`);
  if (current.status !== 'active')
    throw new Error(`a login would be refused for ${user.email}: the account is ${current.status}`);
  if (current.mfaEnabledAt && !mfaVerified)
    throw new Error(`a login would be refused for ${user.email}: MFA is enabled, the login needs otp`);
  return t.container.services.auth.sessionFor(current, mfaVerified);
}

/** Logs in through the real endpoint (scrypt) and returns the bearer token. */
export async function loginFor(
  t: Pick<TestApp, 'http'>,
  user: Pick<User, 'email'>,
  password = PASSWORD,
): Promise<string> {
  const res = await t.http.post('/api/auth/login').send({ email: user.email, password });
  if (res.status !== 200) throw new Error(`login failed for ${user.email}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.accessToken as string;
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
