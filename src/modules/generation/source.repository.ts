// What generation reads of a resource: its current version and that version's passages (written by
// ingestion), in reading order. Pages = the highest page number among them (a slide, a sheet's position).
import type { Sql } from '../../shared/sql.ts';

export interface SourcePassage {
  pageNumber: number;
  headingPath: string | null;
  content: string;
}

export interface SourceSummary {
  resourceId: string;
  organizationId: string;
  name: string;
  description: string | null;
  versionId: string | null;
  version: number;
  pages: number;
  passages: number;
  /** Whether the resource is published (drafts are not ingested), and its current version's ingestion, if any. */
  published: boolean;
  ingestion: { status: string; lastError: string | null } | null;
}

export async function loadSourceSummary(sql: Sql, resourceId: string): Promise<SourceSummary | undefined> {
  const row = await sql.one<{
    organization_id: string;
    name: string;
    description: string | null;
    version_id: string | null;
    version: number;
    pages: number | null;
    passages: string;
    status: string;
    ingestion_status: string | null;
    ingestion_error: string | null;
  }>(
    `SELECT r.organization_id, r.name, r.description, v.id AS version_id, r.current_version AS version, r.status,
            (SELECT max(p.page_number) FROM resource_passages p WHERE p.version_id = v.id) AS pages,
            (SELECT count(*) FROM resource_passages p WHERE p.version_id = v.id) AS passages,
            i.status AS ingestion_status, i.last_error AS ingestion_error
       FROM resources r
       LEFT JOIN resource_versions v ON v.resource_id = r.id AND v.version = r.current_version
       LEFT JOIN resource_ingestions i ON i.version_id = v.id
      WHERE r.id = $1::uuid`,
    [resourceId],
  );
  if (!row) return undefined;
  return {
    resourceId,
    organizationId: row.organization_id,
    name: row.name,
    description: row.description,
    versionId: row.version_id,
    version: row.version,
    pages: row.pages ?? 0,
    passages: Number(row.passages),
    published: row.status === 'published',
    ingestion: row.ingestion_status ? { status: row.ingestion_status, lastError: row.ingestion_error } : null,
  };
}

export async function loadPassages(sql: Sql, versionId: string): Promise<SourcePassage[]> {
  const rows = await sql.rows<{ page_number: number; heading_path: string | null; content: string }>(
    'SELECT page_number, heading_path, content FROM resource_passages WHERE version_id = $1::uuid ORDER BY ordinal',
    [versionId],
  );
  return rows.map((row) => ({ pageNumber: row.page_number, headingPath: row.heading_path, content: row.content }));
}
