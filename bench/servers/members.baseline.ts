// Same SQL as GET /api/members?status=...&order[lastName]=asc&page=N: one page of the organization's
// members with that status by last name (id breaks ties), and the total count, at once; and as
// GET /api/members/{id}: one member of the organization by id (/members/<id>?organizationId=...).
import { serveBaseline } from './baseline.ts';

const COLUMNS = `id, organization_id AS "organizationId", first_name AS "firstName", last_name AS "lastName", email, phone, tier,
  membership_type AS "membershipType", status, joined_at AS "joinedAt", renewal_date AS "renewalDate", user_id AS "userId",
  custom_fields AS "customFields", created_at AS "createdAt", updated_at AS "updatedAt"`;

serveBaseline(async (url, pool) => {
  const organizationId = url.searchParams.get('organizationId');
  const id = url.pathname.split('/')[2];
  if (id) {
    const found = await pool.query(`SELECT ${COLUMNS} FROM members WHERE id = $1 AND organization_id = $2`, [
      id,
      organizationId,
    ]);
    return found.rows[0];
  }
  const status = url.searchParams.get('status');
  const page = Number(url.searchParams.get('page') ?? 1);
  const size = Number(url.searchParams.get('itemsPerPage') ?? 25);
  const [count, rows] = await Promise.all([
    pool.query('SELECT count(*) AS count FROM members WHERE organization_id = $1 AND status = $2', [
      organizationId,
      status,
    ]),
    pool.query(
      `SELECT ${COLUMNS} FROM members WHERE organization_id = $1 AND status = $2 ORDER BY last_name ASC, id ASC LIMIT $3 OFFSET $4`,
      [organizationId, status, size, (page - 1) * size],
    ),
  ]);
  const totalItems = Number(count.rows[0].count);
  return {
    data: rows.rows,
    pagination: { page, itemsPerPage: size, totalItems, totalPages: Math.ceil(totalItems / size) },
  };
});
