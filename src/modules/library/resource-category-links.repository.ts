// A resource's category links, written by the library's create and update inside their transaction.
import type { Transaction } from 'sequelize';
import { AppError, type FieldError } from '../../shared/errors.ts';
import type { Sql } from '../../shared/sql.ts';

/**
 * Categories must be this organization's and not archived, except an archived one the resource being
 * changed (`resourceId`) is already in: its link is kept, so a form saved again as it was is not
 * refused. 422 names the ones that are not.
 */
export async function checkCategories(
  sql: Sql,
  organizationId: string,
  ids: readonly string[],
  transaction: Transaction,
  resourceId: string | null = null,
): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const rows = await sql.rows<{ id: string }>(
    `SELECT c.id FROM resource_categories c
      WHERE c.id = ANY($1::uuid[]) AND c.organization_id = $2
        AND (c.archived_at IS NULL OR EXISTS (SELECT 1 FROM resource_category_links l
               WHERE l.category_id = c.id AND l.resource_id = $3::uuid))`,
    [unique, organizationId, resourceId],
    transaction,
  );
  const found = new Set(rows.map((row) => row.id));
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length) {
    const fieldErrors: FieldError[] = missing.map((id) => ({
      field: 'categoryIds',
      message: `no active category ${id} in this organization`,
    }));
    throw new AppError('unprocessable', `Unknown or archived categories: ${missing.join(', ')}`, {
      errors: fieldErrors,
    });
  }
  return unique;
}

export async function linkCategories(
  sql: Sql,
  organizationId: string,
  resourceId: string,
  categoryIds: readonly string[],
  transaction: Transaction,
): Promise<void> {
  if (!categoryIds.length) return;
  await sql.query(
    'INSERT INTO resource_category_links (resource_id, category_id, organization_id) SELECT $1, unnest($2::uuid[]), $3',
    [resourceId, categoryIds, organizationId],
    transaction,
  );
}
