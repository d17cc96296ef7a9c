// Library rows for ingestion tests, written as the upload API will write them (lib-files builds that
// API): a resource, a version whose file is put through container.storage under the resource's
// prefix, and the domain events the resource service publishes.
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ResourceFormat } from '../../src/modules/library/resource.model.ts';
import type { TestApp } from '../setup/test-app.ts';

/** Library files of a test app in a temporary folder (an in-memory database's DATA_DIR is not a folder). */
export const storageEnv = (): Record<string, string> => ({
  LIBRARY_STORAGE_DIR: mkdtempSync(path.join(tmpdir(), 'guildhall-ingest-files-')),
});

const TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  mp4: 'video/mp4',
};

export interface StoredResource {
  resourceId: string;
  versionId: string;
}

export async function storeResource(
  t: TestApp,
  organizationId: string,
  file: Buffer,
  options: { format?: ResourceFormat; status?: 'draft' | 'published'; accessLevel?: string; name?: string } = {},
): Promise<StoredResource> {
  const format = options.format ?? 'pdf';
  const status = options.status ?? 'published';
  const [resource] = await t.container.sql.rows<{ id: string }>(
    `INSERT INTO resources (organization_id, name, type, format, access_level, status, published_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
    [
      organizationId,
      options.name ?? `Document ${format}`,
      format === 'mp4' ? 'video' : 'document',
      format,
      options.accessLevel ?? 'members',
      status,
      status === 'published' ? new Date() : null,
    ],
  );
  const versionId = await addVersion(t, resource!.id, file, format);
  return { resourceId: resource!.id, versionId };
}

/** A new version becomes current (what uploading a replacement file does). */
export async function addVersion(
  t: TestApp,
  resourceId: string,
  file: Buffer,
  format: ResourceFormat = 'pdf',
): Promise<string> {
  const row = await t.container.sql.one<{ organization_id: string; next: number }>(
    `SELECT r.organization_id, coalesce(max(v.version), 0) + 1 AS next FROM resources r LEFT JOIN resource_versions v ON v.resource_id = r.id WHERE r.id = $1 GROUP BY r.organization_id`,
    [resourceId],
  );
  const key = `orgs/${row!.organization_id}/resources/${resourceId}/v${row!.next}/file.${format}`;
  await t.container.storage.put(key, Readable.from(file));
  const [version] = await t.container.sql.rows<{ id: string }>(
    `INSERT INTO resource_versions (organization_id, resource_id, version, storage_key, file_name, content_type, format, size_bytes, sha256)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
    [
      row!.organization_id,
      resourceId,
      row!.next,
      key,
      `file.${format}`,
      TYPES[format] ?? 'application/octet-stream',
      format,
      file.length,
      createHash('sha256').update(file).digest('hex'),
    ],
  );
  await t.container.sql.query('UPDATE resources SET current_version = $2 WHERE id = $1', [resourceId, row!.next]);
  return version!.id;
}

export async function setStatus(t: TestApp, resourceId: string, status: 'draft' | 'published'): Promise<void> {
  await t.container.sql.query(
    `UPDATE resources SET status = $2, published_at = CASE WHEN $2 = 'published' THEN now() END WHERE id = $1`,
    [resourceId, status],
  );
}

type ResourceEvent = 'resource.published' | 'resource.version_added' | 'resource.unpublished' | 'resource.deleted';

/** Publishes the event as the resource service does (in a transaction) and returns its id. */
export async function publishEvent(t: TestApp, type: ResourceEvent, resourceId: string): Promise<string> {
  return t.db.sequelize.transaction(
    async (transaction) => (await t.container.domainEvents.record(null, type, { id: resourceId }, transaction)).id,
  );
}
