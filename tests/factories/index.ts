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
  return Organization.create({ name: overrides.name ?? `Org ${suffix}`, slug: `org-${suffix}`, plan: overrides.plan ?? 'standard' });
}

export async function buildUser(
  overrides: Partial<{ role: Role; organizationId: string | null; status: User['status']; email: string; firstName: string; lastName: string; password: string }> = {},
): Promise<User> {
  const role = overrides.role ?? 'ROLE_CLIENT_ADMIN';
  const organizationId =
    overrides.organizationId !== undefined ? overrides.organizationId : role === 'ROLE_PLATFORM_ADMIN' ? null : (await buildOrganization()).id;
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

export async function buildApiKey(organizationId: string): Promise<{ apiKey: ApiKey; secret: string }> {
  const secret = `gh_live_${randomToken(24)}`;
  const apiKey = await ApiKey.create({ organizationId, name: 'test key', prefix: secret.slice(0, 12), keyHash: sha256(secret), createdByUserId: null });
  return { apiKey, secret };
}

/** Logs in through the real endpoint and returns the bearer token. */
export async function tokenFor(t: TestApp, user: User, password = PASSWORD): Promise<string> {
  const res = await t.http.post('/api/auth/login').send({ email: user.email, password });
  if (res.status !== 200) throw new Error(`login failed for ${user.email}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.accessToken as string;
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
