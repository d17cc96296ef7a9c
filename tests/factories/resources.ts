// Library resources for tests, inserted directly (the upload endpoint is another part's): a resource
// row, its first version with a small file in the container's storage, and its category links. Also
// the access world the access matrix walks (exported so later columns — download, stats — reuse it).
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Actor } from '../../src/shared/access/actor.ts';
import { anonymousActor } from '../../src/shared/access/actor.ts';
import type { AccessLevel } from '../../src/modules/library/access-levels.ts';
import { ResourceCategory } from '../../src/modules/library/category.model.ts';
import { ResourceEntitlement } from '../../src/modules/library/entitlement.model.ts';
import { Resource, type ResourceFormat, type ResourceType } from '../../src/modules/library/resource.model.ts';
import { ResourceVersion } from '../../src/modules/library/resource-version.model.ts';
import { Organization } from '../../src/modules/organizations/organization.model.ts';
import type { TestApp } from '../setup/test-app.ts';
import { bearer, buildApiKey, buildOrganization, buildUser, tokenFor } from './index.ts';
import { buildMember } from './records.ts';

export interface ResourceOverrides {
  name?: string;
  description?: string | null;
  tags?: string[];
  accessLevel?: AccessLevel;
  status?: 'draft' | 'published';
  publishedAt?: Date;
  type?: ResourceType;
  format?: ResourceFormat;
  price?: { amount: string; currency: string };
  categoryIds?: string[];
  downloadCount?: number;
}

const CONTENT_TYPES: Record<ResourceFormat, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  png: 'image/png',
  jpeg: 'image/jpeg',
  svg: 'image/svg+xml',
};

export async function buildResource(
  t: TestApp,
  organizationId: string,
  overrides: ResourceOverrides = {},
): Promise<Resource> {
  const accessLevel = overrides.accessLevel ?? 'public';
  const status = overrides.status ?? 'published';
  const format = overrides.format ?? 'pdf';
  const price = accessLevel === 'paid' ? (overrides.price ?? { amount: '12.50', currency: 'EUR' }) : undefined;
  const resource = await Resource.create({
    organizationId,
    name: overrides.name ?? `Resource ${randomUUID().slice(0, 8)}`,
    description: overrides.description ?? null,
    type: overrides.type ?? 'document',
    format,
    accessLevel,
    priceAmount: price?.amount ?? null,
    priceCurrency: price?.currency ?? null,
    status,
    publishedAt: status === 'published' ? (overrides.publishedAt ?? t.clock.now()) : null,
    tags: overrides.tags ?? [],
    downloadCount: String(overrides.downloadCount ?? 0),
  });
  const bytes = Buffer.from(`%PDF-1.4 test file of ${resource.id}\n`);
  const key = `orgs/${organizationId}/resources/${resource.id}/v1/file.${format}`;
  await t.container.storage.put(key, Readable.from([bytes]));
  await ResourceVersion.create({
    organizationId,
    resourceId: resource.id,
    version: 1,
    storageKey: key,
    fileName: `file.${format}`,
    contentType: CONTENT_TYPES[format],
    format,
    sizeBytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  });
  for (const categoryId of overrides.categoryIds ?? []) {
    await t.container.sql.query(
      'INSERT INTO resource_category_links (resource_id, category_id, organization_id) VALUES ($1, $2, $3)',
      [resource.id, categoryId, organizationId],
    );
  }
  return resource;
}

export async function buildCategory(
  organizationId: string,
  overrides: Partial<{ name: string; position: number; archived: boolean; icon: string }> = {},
): Promise<ResourceCategory> {
  return ResourceCategory.create({
    organizationId,
    name: overrides.name ?? `Category ${randomUUID().slice(0, 8)}`,
    position: overrides.position ?? 0,
    icon: overrides.icon ?? null,
    archivedAt: overrides.archived ? new Date() : null,
  });
}

// --- the access world ---------------------------------------------------------------------------

export const WORLD_RESOURCES = ['public', 'preview', 'members', 'premium', 'paid', 'draft'] as const;
export type WorldResource = (typeof WORLD_RESOURCES)[number];

export const WORLD_READERS = [
  'clientAdmin',
  'clientUser',
  'apiKey',
  'activeMember',
  'premiumMember',
  'lapsedMember',
  'entitledMember',
  'userWithoutMember',
  'otherOrganizationAdmin',
  'anonymous',
] as const;
export type WorldReader = (typeof WORLD_READERS)[number];

export interface ReaderHandle {
  /** The actor the services see (for foundation checks such as requireResourceAccess). */
  actor: Actor;
  /** Headers for API calls; absent for the anonymous visitor (public catalogue). */
  headers?: Record<string, string>;
}

export interface AccessWorld {
  organizationId: string;
  slug: string;
  otherOrganizationId: string;
  /** A word every world resource's name holds (search column). */
  keyword: string;
  resources: Record<WorldResource, Resource>;
  readers: Record<WorldReader, ReaderHandle>;
}

const userActor = (user: { id: string; organizationId: string | null; role: Actor['role'] }): Actor => ({
  type: 'user',
  id: user.id,
  organizationId: user.organizationId,
  role: user.role,
  mfaVerified: false,
});

/**
 * One organization with a resource of every access level plus a draft (the paid one has an entitlement
 * for `entitledMember`), and one reader of every kind the library's policy tells apart.
 */
export async function buildAccessWorld(t: TestApp): Promise<AccessWorld> {
  const organization = await buildOrganization();
  const other = await buildOrganization();
  const keyword = `zebrafinch${randomUUID().slice(0, 4).replace(/\d/g, 'q')}`;
  const make = (level: AccessLevel, status: 'draft' | 'published' = 'published', label: string = level) =>
    buildResource(t, organization.id, {
      name: `${keyword} ${label} guide`,
      accessLevel: level,
      status,
      tags: ['matrix'],
    });
  const resources: Record<WorldResource, Resource> = {
    public: await make('public'),
    preview: await make('preview'),
    members: await make('members'),
    premium: await make('premium'),
    paid: await make('paid'),
    draft: await make('public', 'draft', 'draft'),
  };

  const staff = async (
    role: 'ROLE_CLIENT_ADMIN' | 'ROLE_CLIENT_USER',
    organizationId = organization.id,
  ): Promise<ReaderHandle> => {
    const user = await buildUser({ role, organizationId });
    return { actor: userActor(user), headers: bearer(await tokenFor(t, user)) };
  };
  const member = async (record?: {
    status: 'active' | 'lapsed';
    tier: 'member' | 'premium';
  }): Promise<ReaderHandle & { memberId?: string }> => {
    const user = await buildUser({ role: 'ROLE_MEMBER', organizationId: organization.id });
    const row = record
      ? await buildMember(organization.id, { userId: user.id, status: record.status, tier: record.tier })
      : undefined;
    return { actor: userActor(user), headers: bearer(await tokenFor(t, user)), memberId: row?.id };
  };
  const { apiKey, secret } = await buildApiKey(organization.id);
  const entitled = await member({ status: 'active', tier: 'member' });
  await ResourceEntitlement.create({
    organizationId: organization.id,
    resourceId: resources.paid.id,
    memberId: entitled.memberId!,
    reference: 'order-1',
  });

  const readers: Record<WorldReader, ReaderHandle> = {
    clientAdmin: await staff('ROLE_CLIENT_ADMIN'),
    clientUser: await staff('ROLE_CLIENT_USER'),
    apiKey: {
      actor: { type: 'api_key', id: apiKey.id, organizationId: organization.id, role: 'API_KEY', mfaVerified: false },
      headers: bearer(secret),
    },
    activeMember: await member({ status: 'active', tier: 'member' }),
    premiumMember: await member({ status: 'active', tier: 'premium' }),
    lapsedMember: await member({ status: 'lapsed', tier: 'member' }),
    entitledMember: entitled,
    userWithoutMember: await member(),
    otherOrganizationAdmin: await staff('ROLE_CLIENT_ADMIN', other.id),
    anonymous: { actor: anonymousActor(organization.id, 'matrix-visitor') },
  };
  return {
    organizationId: organization.id,
    slug: (await Organization.findByPk(organization.id))!.slug,
    otherOrganizationId: other.id,
    keyword,
    resources,
    readers,
  };
}
