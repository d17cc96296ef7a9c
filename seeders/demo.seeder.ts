// Demo data for a first start: one organization, a platform admin, a client admin and an API key.
// Runs only against an empty database, all in one transaction.
import type { Container } from '../src/container.ts';
import { ApiKey } from '../src/modules/api-keys/api-key.model.ts';
import { Organization } from '../src/modules/organizations/organization.model.ts';
import { User } from '../src/modules/users/user.model.ts';
import { hashPassword, randomToken, sha256 } from '../src/shared/crypto.ts';

export interface DemoData {
  organization: Organization;
  admin: User;
  adminPassword: string;
  clientAdmin: User;
  clientAdminPassword: string;
  apiKey: string;
}

export async function seedDemo(container: Container): Promise<DemoData | null> {
  const { config, db } = container;
  if ((await Organization.count()) > 0) return null;

  const adminPassword = config.demo.adminPassword ?? randomToken(12);
  const clientAdminPassword = config.demo.adminPassword ?? randomToken(12);
  const apiKey = config.demo.apiKey ?? `gh_${config.appEnv === 'sandbox' ? 'test' : 'live'}_${randomToken(24)}`;
  const [adminHash, clientHash] = await Promise.all([hashPassword(adminPassword), hashPassword(clientAdminPassword)]);

  return db.sequelize.transaction(async (transaction) => {
    const organization = await Organization.create(
      { name: 'Demo Association', slug: 'demo', plan: 'professional', environment: config.appEnv },
      { transaction },
    );
    const admin = await User.create(
      {
        organizationId: null,
        firstName: 'Platform',
        lastName: 'Admin',
        email: config.demo.adminEmail ?? 'admin@guildhall.local',
        role: 'ROLE_PLATFORM_ADMIN',
        status: 'active',
        passwordHash: adminHash,
      },
      { transaction },
    );
    const clientAdmin = await User.create(
      {
        organizationId: organization.id,
        firstName: 'Clara',
        lastName: 'Client',
        email: 'client.admin@demo.guildhall.local',
        role: 'ROLE_CLIENT_ADMIN',
        status: 'active',
        passwordHash: clientHash,
      },
      { transaction },
    );
    await ApiKey.create(
      { organizationId: organization.id, name: 'Demo key', prefix: apiKey.slice(0, 12), keyHash: sha256(apiKey), createdByUserId: clientAdmin.id },
      { transaction },
    );
    return { organization, admin, adminPassword, clientAdmin, clientAdminPassword, apiKey };
  });
}
