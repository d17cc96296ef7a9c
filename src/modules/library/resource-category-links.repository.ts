// A resource's category links, written by the library's create and update inside their transaction.
import type { Transaction } from 'sequelize';
import { AppError, type FieldError } from '../../shared/errors.ts';
import type { Sql } from '../../shared/sql.ts';

/** Categories must be this organization's and not archived; 422 names the ones that are not. */
export async function checkCategories(
  sql: Sql,
  organizationId: string,
  ids: readonly string[],
  transaction: Transaction,
): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const rows = await sql.rows<{ id: string }>(
    'SELECT id FROM resource_categories WHERE id = ANY($1::uuid[]) AND organization_id = $2 AND archived_at IS NULL',
    [unique, organizationId],
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
