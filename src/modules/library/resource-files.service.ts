// Reading a resource's files: the current file for its readers (one query for the access check and
// the file, its outcome remembered briefly, since a video player sends a request per seek), any
// version for those who manage the library, the version list, and the download count. Writes are in
// resource.service.ts.
import { scopeFor } from '../../shared/access/scope.ts';
import type { Actor } from '../../shared/access/actor.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Subscriber } from '../../shared/domain-events/domain-event.ts';
import { AppError, errors } from '../../shared/errors.ts';
import { DEFAULT_PAGE_SIZE, offsetOf, pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import { Binds, type Sql } from '../../shared/sql.ts';
import type { AccessLevel } from './access-levels.ts';
import { FileAccessCache } from './file-access.cache.ts';
import { libraryReader, lockedReason, resolveReader, type LibraryReader } from './resource.access.ts';
import { requireOwnResource } from './resource-view.repository.ts';
import type { StoredFile } from '../../http/send-stored-file.ts';
import { recordUsage } from './usage.recorder.ts';

export interface ResourceVersionView {
  version: number;
  fileName: string;
  contentType: string;
  format: string;
  sizeBytes: number;
  sha256: string;
  current: boolean;
  createdAt: Date;
}

/** What the download route sends, and the reader to record the download for. */
export interface OpenedFile {
  reader: LibraryReader;
  file: StoredFile;
}

interface FileRow {
  key: string;
  fileName: string;
  contentType: string;
  sizeBytes: string;
  sha256: string;
  createdAt: Date;
}

type OpenRow = FileRow & { accessLevel: AccessLevel; sees: boolean; opens: boolean };

/** What a reader's file request remembers (file-access.cache.ts): their member record and the access row with the file. */
interface FileDecision {
  member: LibraryReader['member'];
  row: OpenRow;
}

const FILE_COLUMNS = `v.storage_key AS key, v.file_name AS "fileName", v.content_type AS "contentType", v.size_bytes AS "sizeBytes", v.sha256, v.created_at AS "createdAt"`;

const toStoredFile = (row: FileRow): StoredFile => ({
  key: row.key,
  sizeBytes: Number(row.sizeBytes),
  contentType: row.contentType,
  etag: `"${row.sha256}"`,
  lastModified: row.createdAt,
  fileName: row.fileName,
  disposition: 'attachment',
});

export class ResourceFileService {
  private readonly decisions: FileAccessCache<FileDecision>;

  constructor(private readonly deps: { sql: Sql; clock: Clock }) {
    this.decisions = new FileAccessCache(deps.clock);
  }

  /** The inline subscriber that forgets them on every event that can change a decision. */
  accessInvalidation(): Subscriber {
    return this.decisions.invalidation();
  }

  /** The resource's versions, newest first (client admins, platform admins, API keys). */
  async versions(
    actor: Actor,
    id: string,
    page: PageRequest = { page: 1, itemsPerPage: DEFAULT_PAGE_SIZE },
  ): Promise<Page<ResourceVersionView>> {
    const scope = scopeFor(actor, 'resource', 'write');
    const organizationId = scope.organizationId!;
    await requireOwnResource(this.deps.sql, organizationId, id);
    const rows = await this.deps.sql.rows<ResourceVersionView & { sizeBytes: string; total: string }>(
      `SELECT v.version, v.file_name AS "fileName", v.content_type AS "contentType", v.format, v.size_bytes AS "sizeBytes", v.sha256,
              v.version = r.current_version AS current, v.created_at AS "createdAt", count(*) OVER () AS total
         FROM resources r JOIN resource_versions v ON v.resource_id = r.id
        WHERE r.id = $1 AND r.organization_id = $2
        ORDER BY v.version DESC
        LIMIT $3 OFFSET $4`,
      [id, organizationId, page.itemsPerPage, offsetOf(page)],
    );
    const total = rows.length
      ? Number(rows[0]!.total)
      : (await this.deps.sql.one<{ n: string }>('SELECT count(*) AS n FROM resource_versions WHERE resource_id = $1', [
          id,
        ]))!.n;
    return pageOf(
      rows.map(({ total: _total, ...row }) => ({ ...row, sizeBytes: Number(row.sizeBytes) })),
      Number(total),
      page,
    );
  }

  /**
   * The current file for a reader who may open the resource (404 unseen, 403 `resource_locked`): the
   * access check and the file in one query, since a video player sends one request per seek, and its
   * outcome remembered briefly (file-access.cache.ts). The permission and tenant check runs every time.
   */
  async openCurrent(actor: Actor, id: string): Promise<OpenedFile> {
    scopeFor(actor, 'resource', 'read');
    const decision = await this.decisions.get(actor, id, async () => {
      const reader = await resolveReader(this.deps.sql, actor);
      const row = await this.openRow(reader, id);
      return row && { member: reader.member, row };
    });
    const row = decision?.row;
    if (!row || !row.sees) throw errors.notFound('resource', id);
    if (!row.opens)
      throw new AppError('resource_locked', lockedReason(row.accessLevel), { accessLevel: row.accessLevel });
    return { reader: libraryReader(actor, decision.member), file: toStoredFile(row) };
  }

  /** Any version's file, for those who manage the library. */
  async openVersion(actor: Actor, id: string, version: number): Promise<StoredFile> {
    const scope = scopeFor(actor, 'resource', 'write');
    const file = await this.storedFile(scope.organizationId!, id, version);
    if (!file) throw errors.notFound('resource version', `${id}/${version}`);
    return file;
  }

  /** A download that began at byte 0 (a video's further range requests are the same download). */
  async recordDownload(reader: LibraryReader, id: string): Promise<void> {
    await recordUsage(this.deps.sql, reader, id, 'download');
  }

  private async openRow(reader: LibraryReader, id: string): Promise<OpenRow | undefined> {
    const binds = new Binds();
    const idBind = binds.add(id);
    // one text per kind of reader: repeated, prepared once per connection
    return this.deps.sql.repeated<OpenRow>(
      `SELECT r.access_level AS "accessLevel", (${reader.seeSql(binds, 'r')}) AS sees, (${reader.openSql(binds, 'r')}) AS opens, ${FILE_COLUMNS}
         FROM resources r JOIN resource_versions v ON v.resource_id = r.id AND v.version = r.current_version
        WHERE r.id = ${idBind}::uuid`,
      binds.values,
    );
  }

  private async storedFile(organizationId: string, id: string, version: number): Promise<StoredFile | undefined> {
    const row = await this.deps.sql.one<FileRow>(
      `SELECT ${FILE_COLUMNS}
         FROM resources r JOIN resource_versions v ON v.resource_id = r.id AND v.version = $3
        WHERE r.id = $1 AND r.organization_id = $2`,
      [id, organizationId, version],
    );
    return row && toStoredFile(row);
  }
}
