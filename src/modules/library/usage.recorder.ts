// Records one view or download of a resource: an event row (for unique users, rollups and reports)
// and the resource's counter (for sorting by most downloaded), in one statement. A video's many range
// requests are one download: callers record only a response that starts at byte 0.
import type { Sql } from '../../shared/sql.ts';
import type { LibraryReader } from './resource.access.ts';

export type UsageKind = 'view' | 'download';

export async function recordUsage(sql: Sql, reader: LibraryReader, resourceId: string, kind: UsageKind): Promise<void> {
  const { actor } = reader;
  const userId = actor.type === 'user' ? actor.id : null;
  // anonymous visitors and API keys are told apart by a key, never by an address
  const visitorKey = actor.type === 'user' ? null : `${actor.type}:${actor.id}`.slice(0, 64);
  const counter = kind === 'view' ? 'view_count' : 'download_count';
  // the event follows the counter's row: a resource deleted while its file was still being sent
  // (the download is recorded once the response has gone out) is counted nowhere, and fails nothing
  await sql.query(
    `WITH counted AS (
       UPDATE resources SET ${counter} = ${counter} + 1 WHERE id = $2 AND organization_id = $1 RETURNING id)
     INSERT INTO resource_usage_events (organization_id, resource_id, user_id, visitor_key, kind)
     SELECT $1::uuid, id, $3::uuid, $4::text, $5::text FROM counted`,
    [reader.organizationId, resourceId, userId, visitorKey, kind],
  );
}
