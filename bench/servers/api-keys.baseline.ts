// Same SQL as GET /api/api-keys: one page of the organization's keys, newest first, and the count.
import { serveBaseline } from './baseline.ts';

serveBaseline(async (url, pool) => {
  const organizationId = url.searchParams.get('organizationId');
  const page = Number(url.searchParams.get('page') ?? 1);
  const size = Number(url.searchParams.get('itemsPerPage') ?? 25);
  const [count, rows] = await Promise.all([
    pool.query('SELECT count(*)::int AS n FROM api_keys WHERE organization_id = $1', [organizationId]),
    pool.query(
      `SELECT id, name, prefix, created_at, last_used_at, revoked_at FROM api_keys
        WHERE organization_id = $1 ORDER BY created_at DESC, id ASC LIMIT $2 OFFSET $3`,
      [organizationId, size, (page - 1) * size],
    ),
  ]);
  return { data: rows.rows, pagination: { page, itemsPerPage: size, totalItems: count.rows[0].n } };
});
