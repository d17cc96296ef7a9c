// Library records for tests that need a resource without going through the upload (the cross-tenant
// walk): a row, its first version (bytes at the final key when a container's storage is given).
import { randomUUID, createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FileStorage } from '../../src/integrations/storage/file-storage.ts';
import { Resource } from '../../src/modules/library/resource.model.ts';
import { ResourceVersion } from '../../src/modules/library/resource-version.model.ts';

export async function buildResource(
  organizationId: string,
  options: { storage?: FileStorage; status?: 'draft' | 'published' } = {},
): Promise<{ id: string; version: string }> {
  const id = randomUUID();
  const bytes = Buffer.from('%PDF-1.4\n% fixture\n');
  const storageKey = `orgs/${organizationId}/resources/${id}/v1-${randomUUID()}`;
  const status = options.status ?? 'published';
  await Resource.create({
    id,
    organizationId,
    name: 'Fixture',
    type: 'document',
    format: 'pdf',
    accessLevel: 'public',
    status,
    publishedAt: status === 'published' ? new Date() : null,
  });
  await ResourceVersion.create({
    organizationId,
    resourceId: id,
    version: 1,
    storageKey,
    fileName: 'fixture.pdf',
    contentType: 'application/pdf',
    format: 'pdf',
    sizeBytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  });
  if (options.storage) await options.storage.put(storageKey, Readable.from([bytes]));
  return { id, version: '1' };
}
