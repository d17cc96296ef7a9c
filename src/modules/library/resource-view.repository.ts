// Reads resources as the API shows them: the row, its current version, its categories (archived ones
// for managers only: history stays for them, members and staff no longer see an archived category) and
// whether the reader may open it, in one query for a page of ids.
import type { Transaction } from 'sequelize';
import { errors } from '../../shared/errors.ts';
import { Binds, type Sql } from '../../shared/sql.ts';
import type { LibraryReader } from './resource.access.ts';
import type { ResourceView } from './resource.mapper.ts';

interface Row extends Omit<ResourceView, 'file' | 'viewCount' | 'downloadCount'> {
  fileName: string;
  contentType: string;
  sizeBytes: string;
  sha256: string;
  uploadedAt: Date;
  viewCount: string;
  downloadCount: string;
}

/**
 * The resources among `ids` the reader sees, in the order of `ids` (missing or hidden ones are left out).
 * `transaction`: read inside a writer's transaction (its own uncommitted rows; PGlite has one backend).
 */
export async function loadResourceViews(
  sql: Sql,
  reader: LibraryReader,
  ids: readonly string[],
  transaction?: Transaction,
): Promise<ResourceView[]> {
  if (!ids.length) return [];
  const binds = new Binds();
  const idList = binds.add(ids);
  const active = reader.standing === 'manager' ? '' : ' AND c.archived_at IS NULL';
  const rows = await sql.rows<Row>(
    `SELECT r.id, r.name, r.description, r.type, r.format, r.access_level AS "accessLevel",
            r.price_amount::text AS "priceAmount", r.price_currency AS "priceCurrency", r.status,
            r.published_at AS "publishedAt", r.tags, r.current_version AS "currentVersion",
            r.thumbnail_key IS NOT NULL AS "hasThumbnail", r.featured_image_key IS NOT NULL AS "hasFeaturedImage",
            r.view_count AS "viewCount", r.download_count AS "downloadCount",
            r.created_at AS "createdAt", r.updated_at AS "updatedAt",
            v.file_name AS "fileName", v.content_type AS "contentType", v.size_bytes AS "sizeBytes", v.sha256,
            v.created_at AS "uploadedAt",
            (${reader.openSql(binds, 'r')}) AS "canOpen",
            COALESCE((SELECT json_agg(json_build_object('id', c.id, 'name', c.name) ORDER BY c.position, c.name)
                        FROM resource_category_links l JOIN resource_categories c ON c.id = l.category_id
                       WHERE l.resource_id = r.id${active}), '[]'::json) AS categories
       FROM resources r
       JOIN resource_versions v ON v.resource_id = r.id AND v.version = r.current_version
      WHERE r.id = ANY(${idList}::uuid[]) AND ${reader.seeSql(binds, 'r')}`,
    binds.values,
    transaction,
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    const { fileName, contentType, sizeBytes, sha256, uploadedAt, viewCount, downloadCount, ...rest } = row;
    return [
      {
        ...rest,
        viewCount: Number(viewCount),
        downloadCount: Number(downloadCount),
        file: { name: fileName, contentType, sizeBytes: Number(sizeBytes), sha256, uploadedAt },
      },
    ];
  });
}

/** 404 unless the resource belongs to the organization (before a write or a manager's read). */
export async function requireOwnResource(
  sql: Sql,
  organizationId: string,
  id: string,
  transaction?: Transaction,
): Promise<void> {
  const row = await sql.one(
    'SELECT 1 FROM resources WHERE id = $1 AND organization_id = $2',
    [id, organizationId],
    transaction,
  );
  if (!row) throw errors.notFound('resource', id);
}
