// Thumbnails of library resources: made by a job (never in the upload request) from the featured image
// when there is one, else from the current file, written under the resource's storage prefix, and
// served to whoever may see the resource. Also serves the featured image itself.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FileStorage } from '../../../integrations/storage/file-storage.ts';
import type { Actor } from '../../../shared/access/actor.ts';
import { errors } from '../../../shared/errors.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { Sql } from '../../../shared/sql.ts';
import { requireResourceAccess, resolveReader } from '../resource.access.ts';
import type { StoredFile } from '../../../http/send-stored-file.ts';
import { canRender, THUMBNAIL_CONTENT_TYPE, type ThumbnailRenderer } from './thumbnail.renderer.ts';

interface SourceRow {
  organizationId: string;
  version: number;
  format: string | null;
  storageKey: string | null;
  featuredImageKey: string | null;
  thumbnailKey: string | null;
}

export type ThumbnailOutcome = 'made' | 'unchanged' | 'unsupported' | 'gone';

/** Every file a resource owns lives under this prefix (docs/library.md). */
export const resourcePrefix = (organizationId: string, resourceId: string) =>
  `orgs/${organizationId}/resources/${resourceId}/`;

/** A sniff of the first bytes: the featured image's type is not stored with its key. */
export function imageTypeOf(head: Buffer): string {
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP')
    return 'image/webp';
  if (head.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (/^(\uFEFF)?\s*</.test(head.toString('utf8'))) return 'image/svg+xml';
  return 'application/octet-stream';
}

const etagOf = (key: string, sizeBytes: number, modifiedAt: Date) =>
  `"${createHash('sha256').update(`${key}:${sizeBytes}:${modifiedAt.getTime()}`).digest('hex').slice(0, 40)}"`;

export class ThumbnailService {
  constructor(private readonly deps: { sql: Sql; storage: FileStorage; renderer: ThumbnailRenderer; logger: Logger }) {}

  /**
   * Makes (or remakes) a resource's thumbnail. Idempotent: its key names the version and source, so a
   * retry rewrites the same key; an older thumbnail is removed once the row points at the new one.
   */
  async generate(resourceId: string): Promise<ThumbnailOutcome> {
    const { sql, storage, renderer } = this.deps;
    const row = await sql.one<SourceRow>(
      `SELECT r.organization_id AS "organizationId", r.current_version AS version, v.format, v.storage_key AS "storageKey",
              r.featured_image_key AS "featuredImageKey", r.thumbnail_key AS "thumbnailKey"
         FROM resources r LEFT JOIN resource_versions v ON v.resource_id = r.id AND v.version = r.current_version
        WHERE r.id = $1`,
      [resourceId],
    );
    if (!row) return 'gone';
    const source = row.featuredImageKey
      ? { key: row.featuredImageKey, format: 'png', name: 'featured' } // sharp reads any image type it is given
      : row.storageKey && row.format && canRender(row.format)
        ? { key: row.storageKey, format: row.format, name: `v${row.version}` }
        : null;
    if (!source) return 'unsupported';
    const stored = await storage.stat(source.key);
    if (!stored) return 'unsupported';
    // named by what it was made from: a metadata-only change (resource.updated) finds it made already
    const made = createHash('sha256')
      .update(`${source.key}:${stored.sizeBytes}:${stored.modifiedAt.getTime()}`)
      .digest('hex')
      .slice(0, 16);
    const key = `${resourcePrefix(row.organizationId, resourceId)}thumbnails/${source.name}-${made}.webp`;
    if (row.thumbnailKey === key && (await storage.stat(key))) return 'unchanged';
    const bytes = await renderer.render(source.format, () => storage.get(source.key));
    if (!bytes) return 'unsupported';

    await storage.put(key, Readable.from([bytes]), { contentType: THUMBNAIL_CONTENT_TYPE });
    // Only over the state it was made from: a new version, featured image or thumbnail stored while
    // this one rendered (another worker's job for the newer state) must not be replaced by it.
    const updated = await sql.query(
      `UPDATE resources SET thumbnail_key = $2
        WHERE id = $1 AND current_version IS NOT DISTINCT FROM $3
          AND featured_image_key IS NOT DISTINCT FROM $4 AND thumbnail_key IS NOT DISTINCT FROM $5`,
      [resourceId, key, row.version, row.featuredImageKey, row.thumbnailKey],
    );
    if (updated.rowCount === 0) {
      const now = await sql.one<{ thumbnailKey: string | null }>(
        'SELECT thumbnail_key AS "thumbnailKey" FROM resources WHERE id = $1',
        [resourceId],
      );
      // deleted while rendering (its prefix is being removed) or superseded: leave nothing of ours,
      // unless the job that won stored this very key (the same source)
      if (now?.thumbnailKey !== key) await storage.delete(key);
      return now ? 'unchanged' : 'gone';
    }
    if (row.thumbnailKey && row.thumbnailKey !== key) await storage.delete(row.thumbnailKey);
    return 'made';
  }

  async thumbnail(actor: Actor, resourceId: string): Promise<StoredFile> {
    const key = await this.visibleKey(actor, resourceId, 'thumbnail_key');
    return this.storedFile(key, THUMBNAIL_CONTENT_TYPE, 'thumbnail.webp');
  }

  async featuredImage(actor: Actor, resourceId: string): Promise<StoredFile> {
    const key = await this.visibleKey(actor, resourceId, 'featured_image_key');
    const head = await (
      await this.deps.storage.get(key, { start: 0, end: 63 }).catch(() => Readable.from([]))
    ).toArray();
    const contentType = imageTypeOf(Buffer.concat(head as Buffer[]));
    const extension =
      { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif', 'image/svg+xml': 'svg' }[
        contentType
      ] ?? 'bin';
    return this.storedFile(key, contentType, `featured-image.${extension}`);
  }

  /** Previews are for everyone who sees the resource (the catalogue shows them), not only who may open it. */
  private async visibleKey(
    actor: Actor,
    resourceId: string,
    column: 'thumbnail_key' | 'featured_image_key',
  ): Promise<string> {
    const reader = await resolveReader(this.deps.sql, actor);
    await requireResourceAccess(this.deps.sql, reader, resourceId, 'see');
    const row = await this.deps.sql.one<{ key: string | null }>(
      `SELECT ${column} AS key FROM resources WHERE id = $1`,
      [resourceId],
    );
    if (!row?.key) throw errors.notFound(column === 'thumbnail_key' ? 'thumbnail' : 'featured image', resourceId);
    return row.key;
  }

  private async storedFile(key: string, contentType: string, fileName: string): Promise<StoredFile> {
    const stat = await this.deps.storage.stat(key);
    if (!stat) throw errors.notFound('file', key);
    return {
      key,
      sizeBytes: stat.sizeBytes,
      contentType,
      etag: etagOf(key, stat.sizeBytes, stat.modifiedAt),
      lastModified: stat.modifiedAt,
      fileName,
      disposition: 'inline',
    };
  }
}
