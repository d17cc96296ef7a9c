// One organization with a caller of every kind and a record behind every `{id}` of the contract, for
// the role × operation matrix and the mass-assignment probes (tests/contract). Built once per file,
// in a few seconds; tokens are minted by the app's own token service (no scrypt per caller).
import { randomUUID } from 'node:crypto';
import { ApiKey } from '../../src/modules/api-keys/api-key.model.ts';
import { Directory } from '../../src/modules/directory/directory.model.ts';
import { ResourceEntitlement } from '../../src/modules/library/entitlement.model.ts';
import { Resource } from '../../src/modules/library/resource.model.ts';
import { SsoConnection } from '../../src/modules/sso/sso-connection.model.ts';
import { WebhookDelivery } from '../../src/modules/webhooks/webhook-delivery.model.ts';
import { WebhookEvent } from '../../src/modules/webhooks/webhook-event.model.ts';
import { WebhookSubscription } from '../../src/modules/webhooks/webhook-subscription.model.ts';
import { ORGANIZATION_HEADER } from '../../src/shared/access/tenancy.ts';
import type { User } from '../../src/modules/users/user.model.ts';
import {
  bearer,
  buildApiKey,
  buildOrganization,
  buildUser,
  mfaVerifiedTokenFor,
  tokenFor,
} from '../factories/index.ts';
import { buildSourceResource } from '../factories/generation-sources.ts';
import { buildCourse, buildEvent, buildMember } from '../factories/records.ts';
import { buildCategory } from '../factories/resources.ts';
import type { TestApp } from '../setup/test-app.ts';
import type { CallerKind } from './access-table.ts';

/** Caller kinds the table names, plus the three broken credentials every operation refuses. */
export type Caller = CallerKind | 'malformed' | 'expired' | 'revoked';
export const BROKEN_CREDENTIALS = ['malformed', 'expired', 'revoked'] as const;

export interface AccessWorld {
  organizationId: string;
  slug: string;
  /** The request headers each caller sends (none for anonymous). */
  headers: Record<Caller, Record<string, string>>;
  /** A value for each path parameter, by the collection prefix whose templates use it. */
  values: Array<[prefix: string, values: Record<string, string>]>;
  users: Record<'member' | 'clientAdmin' | 'platformAdmin', User>;
}

/** Values of A's records for a path template: the longest matching prefix's, then any UUID. */
export function fillPath(world: AccessWorld, template: string): string {
  const match = world.values
    .filter(([prefix]) => template === prefix || template.startsWith(`${prefix}/`))
    .sort((a, b) => b[0].length - a[0].length)[0];
  return template.replace(
    /\{(\w+)\}/g,
    (_, name: string) => match?.[1][name] ?? world.values[0]![1][name] ?? randomUUID(),
  );
}

export async function buildAccessWorld(t: TestApp): Promise<AccessWorld> {
  const organization = await buildOrganization({ plan: 'enterprise' });
  const organizationId = organization.id;
  const user = (role: User['role']) => buildUser({ role, organizationId });
  const member = await user('ROLE_MEMBER');
  const sponsorAdmin = await user('ROLE_SPONSOR_ADMIN');
  const clientUser = await user('ROLE_CLIENT_USER');
  const clientAdmin = await user('ROLE_CLIENT_ADMIN');
  const platformAdmin = await buildUser({ role: 'ROLE_PLATFORM_ADMIN' });
  // a second platform admin holds the impersonation session, so the first one never has one open
  const impersonator = await buildUser({ role: 'ROLE_PLATFORM_ADMIN' });
  const platformToken = await mfaVerifiedTokenFor(t, platformAdmin);
  const impersonation = await t.http
    .post(`/api/admin/users/${clientAdmin.id}/impersonate`)
    .set(bearer(await mfaVerifiedTokenFor(t, impersonator)))
    .send({ mode: 'read_only', reason: 'role matrix' });
  if (impersonation.status !== 201 && impersonation.status !== 200)
    throw new Error(`impersonation: ${impersonation.status} ${JSON.stringify(impersonation.body)}`);
  const directory = await t.http
    .post('/api/admin/directories')
    .set(bearer(platformToken))
    .send({ organizationId, name: 'Matrix', provider: 'scim' });
  if (directory.status !== 201) throw new Error(`directory: ${directory.status} ${JSON.stringify(directory.body)}`);
  // expired: a client admin's token minted two hours ago (the clock is the app's ManualClock)
  const now = t.clock.now();
  t.clock.set(new Date(now.getTime() - 2 * 3600_000));
  const expired = await tokenFor(t, clientAdmin);
  t.clock.set(now);
  // revoked: an API key of the organization, revoked before its first use
  const revoked = await buildApiKey(organizationId);
  await ApiKey.update({ revokedAt: now }, { where: { id: revoked.apiKey.id } });

  const headers: AccessWorld['headers'] = {
    anonymous: {},
    malformed: { Authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.bm90LWEtdG9rZW4.c2lnbmF0dXJl' },
    expired: bearer(expired),
    revoked: bearer(revoked.secret),
    member: bearer(await tokenFor(t, member)),
    sponsor_admin: bearer(await tokenFor(t, sponsorAdmin)),
    client_user: bearer(await tokenFor(t, clientUser)),
    client_admin: bearer(await tokenFor(t, clientAdmin)),
    api_key: bearer((await buildApiKey(organizationId)).secret),
    platform_admin: { ...bearer(platformToken), [ORGANIZATION_HEADER]: organizationId },
    impersonation: bearer(impersonation.body.accessToken),
    directory: bearer(directory.body.token),
  };
  return {
    organizationId,
    slug: organization.slug,
    headers,
    values: await recordsOf(organizationId, organization.slug),
    users: { member, clientAdmin, platformAdmin },
  };
}

/** A record of the organization behind every path parameter, by collection prefix. */
async function recordsOf(organizationId: string, slug: string): Promise<AccessWorld['values']> {
  const { resource, version } = await buildSourceResource(organizationId, { accessLevel: 'public' });
  const entitled = await buildMember(organizationId);
  const entitlement = await ResourceEntitlement.create({
    organizationId,
    resourceId: resource.id,
    memberId: entitled.id,
  });
  const subscription = await WebhookSubscription.create({
    organizationId,
    url: 'https://example.test/hook',
    description: null,
    eventTypes: ['member.created'],
    secretSealed: 'sealed',
  });
  const event = await WebhookEvent.create({
    id: `msg_${randomUUID().replaceAll('-', '')}`,
    organizationId,
    type: 'member.created',
    body: '{}',
    occurredAt: new Date(),
  });
  const delivery = await WebhookDelivery.create({
    organizationId,
    subscriptionId: subscription.id,
    eventId: event.id,
    nextAttemptAt: null,
    status: 'failed',
  });
  const sso = await SsoConnection.create({
    organizationId,
    name: 'Matrix SSO',
    protocol: 'identity_service',
    settings: { connection: 'conn_matrix' },
  });
  const uploadId = randomUUID();
  await Resource.sequelize!.query(
    `INSERT INTO resource_uploads (id, organization_id, creator_type, creator_id, file_name, size_bytes, expires_at)
     VALUES ($1, $2, 'api_key', 'k', 'a.pdf', 10, now() + interval '1 hour')`,
    { bind: [uploadId, organizationId] },
  );
  // records that a write may change or remove, kept apart from the callers' own
  const otherOrganization = await buildOrganization();
  const managedUser = await buildUser({ role: 'ROLE_MEMBER', organizationId });
  const directory = await Directory.create({ organizationId, name: 'Matrix fixture', provider: 'scim' });
  return [
    ['', { organizationId, slug }],
    ['/api/members', { id: (await buildMember(organizationId)).id }],
    ['/api/events', { id: (await buildEvent(organizationId, { status: 'published' })).id }],
    ['/api/courses', { id: (await buildCourse(organizationId, { status: 'published' })).id }],
    ['/api/api-keys', { id: (await buildApiKey(organizationId)).apiKey.id }],
    ['/api/resources', { id: resource.id, version: String(version.version), entitlementId: entitlement.id }],
    ['/api/resources/categories', { id: (await buildCategory(organizationId)).id }],
    ['/api/public/organizations/{slug}/categories', { id: (await buildCategory(organizationId)).id }],
    ['/api/public/organizations/{slug}/resources', { id: resource.id }],
    ['/api/uploads', { uploadId }],
    ['/api/webhooks', { id: subscription.id, deliveryId: delivery.id }],
    ['/api/auth/sso/connections', { id: sso.id }],
    ['/api/sso/connections', { id: sso.id }],
    ['/api/directories', { id: directory.id }],
    ['/api/admin/directories', { id: directory.id }],
    ['/api/admin/users', { id: managedUser.id }],
    ['/api/admin/organizations', { id: otherOrganization.id }],
    ['/api/admin/integrations/crm', { organizationId }],
  ];
}
