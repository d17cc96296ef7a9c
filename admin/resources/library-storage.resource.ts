// Storage used per organization by its library: one computed row per organization that has resources
// (resources, versions, bytes of every stored version). Read-only, computed in SQL per page.
import { BaseProperty, BaseRecord, type ActionContext, type Filter, type ParamsType } from 'adminjs';
import type { AppContext as Container } from '../../src/app-context.ts';
import { portalActor } from '../portal-actor.ts';
import { PORTAL_PROPERTIES } from './portal-properties.ts';
import { ServiceResource } from './service.resource.ts';
import { isUuid } from './ids.ts';

const property = (
  path: string,
  type: ConstructorParameters<typeof BaseProperty>[0]['type'],
  position: number,
  isId = false,
) => new BaseProperty({ path, type, isId, isSortable: false, position });

const STORAGE_PROPERTIES = [
  property('id', 'uuid', 0, true),
  property('organizationName', 'string', 1),
  property('resources', 'number', 2),
  property('versions', 'number', 3),
  property('storageUsed', 'string', 4),
  property('storageBytes', 'number', 5),
];

interface StorageRow {
  id: string;
  organizationName: string;
  resources: string;
  versions: string;
  storageBytes: string;
}

/** 1536 -> "1.5 KB": what an admin reads at a glance; the exact bytes are shown next to it. */
export function humanBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) (value /= 1024), unit++;
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

const SELECT = `SELECT o.id, o.name AS "organizationName",
         (SELECT count(*) FROM resources r WHERE r.organization_id = o.id) AS resources,
         count(v.id) AS versions, coalesce(sum(v.size_bytes), 0) AS "storageBytes"
    FROM organizations o LEFT JOIN resource_versions v ON v.organization_id = o.id
   WHERE EXISTS (SELECT 1 FROM resources r WHERE r.organization_id = o.id)`;

export class LibraryStorageResource extends ServiceResource {
  constructor(container: Container) {
    super(container, 'library_storage', STORAGE_PROPERTIES);
  }

  private params(row: StorageRow): ParamsType {
    const bytes = Number(row.storageBytes);
    const all: Record<string, unknown> = {
      ...row,
      resources: Number(row.resources),
      versions: Number(row.versions),
      storageBytes: bytes,
      storageUsed: humanBytes(bytes),
    };
    return Object.fromEntries(PORTAL_PROPERTIES.library_storage.map((name) => [name, all[name]]));
  }

  override async count(_filter: Filter, context?: ActionContext): Promise<number> {
    await portalActor(context?.currentAdmin);
    const row = await this.container.sql.one<{ n: string }>(
      `SELECT count(DISTINCT organization_id) AS n FROM resources`,
    );
    return Number(row?.n ?? 0);
  }

  override async find(
    _filter: Filter,
    options: { limit?: number; offset?: number },
    context?: ActionContext,
  ): Promise<BaseRecord[]> {
    await portalActor(context?.currentAdmin);
    const rows = await this.container.sql.rows<StorageRow>(
      `${SELECT} GROUP BY o.id ORDER BY "storageBytes" DESC, o.name LIMIT $1 OFFSET $2`,
      [options.limit ?? 25, options.offset ?? 0],
    );
    return rows.map((row) => new BaseRecord(this.params(row), this));
  }

  override async findOne(id: string, context?: ActionContext): Promise<BaseRecord | null> {
    await portalActor(context?.currentAdmin);
    if (!isUuid(id)) return null;
    const row = await this.container.sql.one<StorageRow>(`${SELECT} AND o.id = $1 GROUP BY o.id`, [id]);
    return row ? new BaseRecord(this.params(row), this) : null;
  }

  override async findMany(ids: Array<string | number>, context?: ActionContext): Promise<BaseRecord[]> {
    const found = await Promise.all([...new Set(ids.map(String))].map((id) => this.findOne(id, context)));
    return found.filter((r): r is BaseRecord => r !== null);
  }
}
