// Library resources, categories and usage events for the reports tests, inserted directly (the upload
// path is another part's): a resource row with one version, categories and their links, and usage
// events at chosen times (recordUsage stamps now(); reports need history).
import { createHash, randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';

export interface ResourceFixture {
  id: string;
  name: string;
}

export async function buildResource(
  sequelize: Sequelize,
  organizationId: string,
  overrides: Partial<{
    name: string;
    status: 'draft' | 'published';
    accessLevel: string;
    type: string;
    format: string;
    sizeBytes: number;
  }> = {},
): Promise<ResourceFixture> {
  const id = randomUUID();
  const name = overrides.name ?? `Resource ${id.slice(0, 8)}`;
  const status = overrides.status ?? 'published';
  const accessLevel = overrides.accessLevel ?? 'members';
  const paid = accessLevel === 'paid';
  await sequelize.query(
    `INSERT INTO resources (id, organization_id, name, type, format, access_level, price_amount, price_currency, status, published_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, CASE WHEN $9 = 'published' THEN now() END)`,
    {
      bind: [
        id,
        organizationId,
        name,
        overrides.type ?? 'document',
        overrides.format ?? 'pdf',
        accessLevel,
        paid ? 10 : null,
        paid ? 'USD' : null,
        status,
      ],
    },
  );
  await sequelize.query(
    `INSERT INTO resource_versions (organization_id, resource_id, version, storage_key, file_name, content_type, format, size_bytes, sha256)
     VALUES ($1, $2, 1, $3, 'file.pdf', 'application/pdf', 'pdf', $4, $5)`,
    {
      bind: [
        organizationId,
        id,
        `orgs/${organizationId}/resources/${id}/v1`,
        overrides.sizeBytes ?? 1024,
        createHash('sha256').update(id).digest('hex'),
      ],
    },
  );
  return { id, name };
}

export async function buildCategory(
  sequelize: Sequelize,
  organizationId: string,
  name: string,
  options: { archived?: boolean; resourceIds?: string[] } = {},
): Promise<string> {
  const id = randomUUID();
  await sequelize.query(
    `INSERT INTO resource_categories (id, organization_id, name, archived_at) VALUES ($1, $2, $3, CASE WHEN $4 THEN now() END)`,
    {
      bind: [id, organizationId, name, options.archived ?? false],
    },
  );
  for (const resourceId of options.resourceIds ?? []) {
    await sequelize.query(
      `INSERT INTO resource_category_links (resource_id, category_id, organization_id) VALUES ($1, $2, $3)`,
      { bind: [resourceId, id, organizationId] },
    );
  }
  return id;
}

export interface UsageEventFixture {
  resourceId: string;
  kind: 'view' | 'download';
  at: Date | string;
  userId?: string;
  visitorKey?: string;
  /** How many identical events (default 1). */
  times?: number;
}

export async function recordEvents(
  sequelize: Sequelize,
  organizationId: string,
  events: UsageEventFixture[],
): Promise<void> {
  for (const event of events) {
    await sequelize.query(
      `INSERT INTO resource_usage_events (organization_id, resource_id, user_id, visitor_key, kind, occurred_at)
       SELECT $1, $2, $3, $4, $5, $6 FROM generate_series(1, $7::int)`,
      {
        bind: [
          organizationId,
          event.resourceId,
          event.userId ?? null,
          event.userId ? null : (event.visitorKey ?? 'anonymous:visitor'),
          event.kind,
          new Date(event.at).toISOString(),
          event.times ?? 1,
        ],
      },
    );
  }
}
