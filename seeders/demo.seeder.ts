// Demo data: one organization, a platform admin, a client admin, an API key and demo records (members,
// events, courses: demo-records.seeder.ts), in one transaction; then the demo library
// (demo-library.seeder.ts), through the library's service, whose events need the job queue started.
// Created on the first start in development (an empty database), or when asked (`npm run seed:demo`);
// never by a production start. The credentials exist in plain text only in what this returns.
import type { Container } from '../src/container.ts';
import { ApiKey } from '../src/modules/api-keys/api-key.model.ts';
import { Organization } from '../src/modules/organizations/organization.model.ts';
import { User } from '../src/modules/users/user.model.ts';
import type { Actor } from '../src/shared/access/actor.ts';
import { hashPassword, randomToken, sha256 } from '../src/shared/crypto.ts';
import { DEFAULT_ADMIN_EMAIL } from './demo-admin.ts';
import { seedDemoLibrary } from './demo-library.seeder.ts';
import { seedDemoRecords } from './demo-records.seeder.ts';

export interface DemoData {
  organization: Organization;
  admin: User;
  adminPassword: string;
  clientAdmin: User;
  clientAdminPassword: string;
  apiKey: string;
  records: { members: number; events: number; courses: number };
  /** Demo library documents (published; the chat answers from them once ingestion has run). */
  libraryDocuments: number;
}

export const DEMO_ORGANIZATION_SLUG = 'demo';

/** The development quick start: demo data on a first start, that is against a database without organizations. */
export async function seedDemoOnFirstStart(container: Container): Promise<DemoData | null> {
  if (container.config.nodeEnv !== 'development' || (await Organization.count()) > 0) return null;
  return seedDemo(container);
}

/**
 * Creates the demo data unless the demo organization exists already; then it only adds the demo
 * records that are missing (so an older demo organization gets them too) and returns null.
 */
export async function seedDemo(container: Container): Promise<DemoData | null> {
  const { config, db } = container;
  const existing = await Organization.findOne({ where: { slug: DEMO_ORGANIZATION_SLUG } });
  if (existing) {
    await db.sequelize.transaction((transaction) => seedDemoRecords(existing.id, transaction, container.clock.now()));
    const clientAdmin = await User.findOne({
      where: { organizationId: existing.id, role: 'ROLE_CLIENT_ADMIN', email: CLIENT_ADMIN_EMAIL },
    });
    if (clientAdmin) await seedDemoLibrary(container, clientAdminActor(clientAdmin, existing.id));
    return null;
  }
  const adminEmail = config.demo.adminEmail ?? DEFAULT_ADMIN_EMAIL;
  if (await User.findOne({ where: { email: adminEmail } })) {
    throw new Error(
      `A user ${adminEmail} exists already: set DEMO_ADMIN_EMAIL to another address for the demo platform admin`,
    );
  }

  const adminPassword = config.demo.adminPassword ?? randomToken(12);
  const clientAdminPassword = config.demo.adminPassword ?? randomToken(12);
  const apiKey = config.demo.apiKey ?? `gh_${config.appEnv === 'sandbox' ? 'test' : 'live'}_${randomToken(24)}`;
  const [adminHash, clientHash] = await Promise.all([hashPassword(adminPassword), hashPassword(clientAdminPassword)]);

  const created = await db.sequelize.transaction(async (transaction) => {
    const organization = await Organization.create(
      { name: 'Demo Association', slug: DEMO_ORGANIZATION_SLUG, plan: 'professional', environment: config.appEnv },
      { transaction },
    );
    const admin = await User.create(
      {
        organizationId: null,
        firstName: 'Platform',
        lastName: 'Admin',
        email: adminEmail,
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
        email: CLIENT_ADMIN_EMAIL,
        role: 'ROLE_CLIENT_ADMIN',
        status: 'active',
        passwordHash: clientHash,
      },
      { transaction },
    );
    await ApiKey.create(
      {
        organizationId: organization.id,
        name: 'Demo key',
        prefix: apiKey.slice(0, 12),
        keyHash: sha256(apiKey),
        createdByUserId: clientAdmin.id,
      },
      { transaction },
    );
    const records = await seedDemoRecords(organization.id, transaction, container.clock.now());
    return { organization, admin, adminPassword, clientAdmin, clientAdminPassword, apiKey, records };
  });
  // the credentials are committed and must be printed whatever happens to the library: a failure
  // there is logged, and `npm run seed:demo` adds what is missing later
  const libraryDocuments = await seedDemoLibrary(
    container,
    clientAdminActor(created.clientAdmin, created.organization.id),
  ).catch((error: unknown) => {
    container.logger.warn({ err: error }, 'demo library not created (npm run seed:demo adds it)');
    return 0;
  });
  return { ...created, libraryDocuments };
}

const CLIENT_ADMIN_EMAIL = 'client.admin@demo.guildhall.local';

const clientAdminActor = (user: User, organizationId: string): Actor => ({
  type: 'user',
  id: user.id,
  organizationId,
  role: 'ROLE_CLIENT_ADMIN',
  mfaVerified: false,
});

/** The one time the credentials are shown: print it to the terminal, never to the structured log. */
export function formatDemoCredentials(demo: DemoData, baseUrl = 'http://localhost:3000'): string {
  const rule = '='.repeat(72);
  return [
    '',
    rule,
    '=== Guildhall demo data created ===',
    `Organization  : ${demo.organization.name} (${demo.organization.id})`,
    `Platform admin: ${demo.admin.email} / ${demo.adminPassword}`,
    `Client admin  : ${demo.clientAdmin.email} / ${demo.clientAdminPassword}`,
    `API key       : ${demo.apiKey}`,
    `Demo records  : ${demo.records.members} members, ${demo.records.events} events, ${demo.records.courses} courses, ${demo.libraryDocuments} library documents`,
    '',
    `Admin Portal  : ${baseUrl}/admin (log in as the platform admin)`,
    `Try the API   : export GUILDHALL_API_KEY=${demo.apiKey}`,
    `                curl -s -H "Authorization: Bearer $GUILDHALL_API_KEY" ${baseUrl}/api/members`,
    `Ask the library: curl -s -H "Authorization: Bearer $GUILDHALL_API_KEY" -H 'Content-Type: application/json' \\`,
    `                -d '{"query":"How much are the dues for students?"}' ${baseUrl}/api/resources/chat`,
    '',
    'Shown this once: only hashes are stored. Note them now (or set DEMO_ADMIN_EMAIL,',
    'DEMO_ADMIN_PASSWORD and DEMO_API_KEY to choose them). Lost them? npm run reset-admin',
    rule,
    '',
  ].join('\n');
}
