// The library's list and search in one statement: the reader's policy (seeSql), the filters and the
// keyword all inside the SQL, so the page and its total are right for every reader. Returns the page's
// ids in order; resource-view.repository.ts then reads them as the API shows them.
//
// Keyword: full-text over a weighted tsvector (name A, tags B, description C; english stemming) where
// every word must match and the last one may be a prefix (`annu rep` finds "Annual report"), OR a
// trigram word similarity of the keyword to the name and tags of at least TYPO_THRESHOLD (pg_trgm's
// `<%`, GIN-indexed), which forgives typos ("documnet", "anual"). Ranked by ts_rank plus half the
// similarity, so exact matches come before near ones.
import type { Sequelize, Transaction } from 'sequelize';
import { Binds, type Sql } from '../../shared/sql.ts';
import type { LibraryReader } from '../library/resource.access.ts';
import type { CatalogQuery } from './catalog.filters.ts';

/** pg_trgm's word similarity a keyword needs to a name and tags (the extension's default is 0.6). */
export const TYPO_THRESHOLD = 0.5;

const COMPARE = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** `to_tsquery` text: every word, the last as a prefix. Words are letters and digits only (catalog.filters.ts). */
export function prefixTsQuery(words: readonly string[]): string {
  return words.map((word, index) => (index === words.length - 1 ? `${word}:*` : word)).join(' & ');
}

export interface SearchStatement {
  text: string;
  values: unknown[];
}

/** The page's statement: ids in order with the total over every matching row (a window count). */
export function searchSql(reader: LibraryReader, query: CatalogQuery, page: { limit: number; offset: number }): SearchStatement {
  const binds = new Binds();
  const where = [reader.seeSql(binds, 'r')];
  let rank = '0';
  if (query.text) {
    const text = binds.add(query.text);
    const similar = `${text} <% r.search_text`;
    const closeness = `0.5 * word_similarity(${text}, r.search_text)`;
    if (query.words.length) {
      const tsq = `to_tsquery('english', ${binds.add(prefixTsQuery(query.words))})`;
      where.push(`(r.search @@ ${tsq} OR ${similar})`);
      rank = `(ts_rank(r.search, ${tsq}) + ${closeness})`;
    } else {
      where.push(similar);
      rank = closeness;
    }
  }
  if (query.categories) {
    // archived categories are not a way in for members and visitors (they no longer see them)
    const active = reader.standing === 'manager' ? '' : ' AND c.archived_at IS NULL';
    where.push(`EXISTS (SELECT 1 FROM resource_category_links l JOIN resource_categories c ON c.id = l.category_id
                         WHERE l.resource_id = r.id AND l.category_id = ANY(${binds.add(query.categories)}::uuid[])${active})`);
  }
  if (query.types) where.push(`r.type = ANY(${binds.add(query.types)}::text[])`);
  if (query.accessLevels) where.push(`r.access_level = ANY(${binds.add(query.accessLevels)}::text[])`);
  if (query.statuses) where.push(`r.status = ANY(${binds.add(query.statuses)}::text[])`);
  if (query.tags) where.push(`r.tags && ${binds.add(query.tags)}::text[]`);
  for (const condition of query.publishedAt) where.push(`r.published_at ${COMPARE[condition.op]} ${binds.add(condition.value)}::timestamptz`);

  const newest = 'r.published_at DESC NULLS LAST, r.created_at DESC, r.id DESC';
  const order = {
    relevance: query.text ? `rank DESC, ${newest}` : newest,
    newest,
    downloads: 'r.download_count DESC, r.id DESC',
    name: 'lower(r.name) ASC, r.id ASC',
  }[query.sort];
  const text = `SELECT r.id, ${rank} AS rank, count(*) OVER ()::int AS total
                  FROM resources r
                 WHERE ${where.join(' AND ')}
                 ORDER BY ${order}
                 LIMIT ${binds.add(page.limit)} OFFSET ${binds.add(page.offset)}`;
  return { text, values: binds.values };
}

/** The count alone, for a page past the end (the window count has no row to ride on). */
function countSql(statement: SearchStatement): SearchStatement {
  const limitAt = statement.text.lastIndexOf('ORDER BY');
  return { text: `SELECT count(*)::int AS total FROM (${statement.text.slice(0, limitAt)}) matching`, values: statement.values.slice(0, -2) };
}

export interface SearchPage {
  ids: string[];
  total: number;
}

/**
 * Runs the search. With a keyword it runs in a transaction that lowers pg_trgm's word-similarity
 * threshold for it alone (SET LOCAL), so the GIN-indexed `<%` finds typos.
 */
export async function searchResourceIds(deps: { sequelize: Sequelize; sql: Sql }, reader: LibraryReader, query: CatalogQuery, page: { limit: number; offset: number }): Promise<SearchPage> {
  const statement = searchSql(reader, query, page);
  const run = async (transaction?: Transaction) => {
    const rows = await deps.sql.rows<{ id: string; total: number }>(statement.text, statement.values, transaction);
    if (rows.length || page.offset === 0) return { ids: rows.map((row) => row.id), total: rows[0]?.total ?? 0 };
    const count = countSql(statement);
    return { ids: [], total: (await deps.sql.one<{ total: number }>(count.text, count.values, transaction))?.total ?? 0 };
  };
  if (!query.text) return run();
  return deps.sequelize.transaction(async (transaction) => {
    await deps.sql.query(`SELECT set_config('pg_trgm.word_similarity_threshold', '${TYPO_THRESHOLD}', true)`, [], transaction);
    return run(transaction);
  });
}
