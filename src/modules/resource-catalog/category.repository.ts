// Categories as readers see them: with the number of resources in each that the reader may see (the
// library's policy inside the count), ordered by position. Archived ones only for managers who ask.
import { Binds, type Sql } from '../../shared/sql.ts';
import type { LibraryReader } from '../library/index.ts';
import type { CategoryRow } from './category.mapper.ts';

export type ArchivedChoice = 'exclude' | 'include' | 'only';

const columns = (reader: LibraryReader, binds: Binds) => `
  c.id, c.name, c.description, c.icon, c.icon_storage_key AS "iconStorageKey", c.position, c.archived_at AS "archivedAt",
  c.created_at AS "createdAt", c.updated_at AS "updatedAt",
  (SELECT count(*) FROM resource_category_links l JOIN resources r ON r.id = l.resource_id
    WHERE l.category_id = c.id AND ${reader.seeSql(binds, 'r')})::int AS "resourceCount"`;

export async function findCategoryPage(
  sql: Sql,
  reader: LibraryReader,
  archived: ArchivedChoice,
  page: { limit: number; offset: number },
): Promise<{ rows: CategoryRow[]; total: number }> {
  const binds = new Binds();
  const where = [`c.organization_id = ${binds.add(reader.organizationId)}`];
  if (archived === 'exclude') where.push('c.archived_at IS NULL');
  if (archived === 'only') where.push('c.archived_at IS NOT NULL');
  const whereSql = where.join(' AND ');
  const countValues = [...binds.values];
  const rows = await sql.rows<CategoryRow>(
    `SELECT ${columns(reader, binds)} FROM resource_categories c WHERE ${whereSql}
      ORDER BY c.archived_at IS NOT NULL, c.position, lower(c.name), c.id
      LIMIT ${binds.add(page.limit)} OFFSET ${binds.add(page.offset)}`,
    binds.values,
  );
  const count = await sql.one<{ total: number }>(
    `SELECT count(*)::int AS total FROM resource_categories c WHERE ${whereSql}`,
    countValues,
  );
  return { rows, total: count?.total ?? 0 };
}

export async function findCategory(sql: Sql, reader: LibraryReader, id: string): Promise<CategoryRow | undefined> {
  const binds = new Binds();
  const where = `c.id = ${binds.add(id)}::uuid AND c.organization_id = ${binds.add(reader.organizationId)}`;
  return sql.one<CategoryRow>(
    `SELECT ${columns(reader, binds)} FROM resource_categories c WHERE ${where}`,
    binds.values,
  );
}
