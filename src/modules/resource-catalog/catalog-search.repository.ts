// The library's list and search in one statement: the reader's policy (seeSql), the filters and the
// keyword all inside the SQL, so the page and its total are right for every reader. Returns the page's
// ids in order; resource-view.repository.ts then reads them as the API shows them.
//
// Keyword: full-text over a weighted tsvector (name A, tags B, description C; English stemming) and
// over the documents' extracted text (resource_text_search: one position-less tsvector per version,
// GIN-indexed, kept from the passages by triggers). Every word must match, within the metadata or
// within the document's text; the last one may be a prefix (`annu rep` finds "Annual report"): on the
// metadata as a tsquery prefix, on the text expanded into the known words it begins (exact terms keep
// the GIN match free of rechecks). Typos: a word the organization's lexicon (the words of its names,
// tags and passages) does not know is widened to its closest known words by trigram similarity
// (`documnet` -> document). Text matches count only for resources the reader may open (openSql: a
// page's text is the document's content); the metadata match keeps the list's rule (seeSql).
//
// Ranking: a metadata match scores 1 + ts_rank (name weighs most); a match found only in the text
// scores 0, so any name, tag or description match outranks it, and text-only matches come newest
// first (ranking them by their text would read every matching document's vector: a second for a
// common word over 200,000 passages). The page's matching pages are ranked by their passages' ts_rank.
import type { Transaction } from 'sequelize';
import { Binds, type Sql } from '../../shared/sql.ts';
import type { LibraryReader } from '../library/index.ts';
import type { CatalogQuery } from './catalog.filters.ts';

/** pg_trgm similarity a known word needs to stand in for an unknown keyword word (0.25 lets `reprot` find report). */
export const TYPO_THRESHOLD = 0.25;
/** Known words one unknown word widens to, closest first. */
const ALTERNATIVES = 3;

const COMPARE = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** Known words the last word's prefix expands to in the documents' text (shortest first). */
const COMPLETIONS = 20;

export interface WordAlternatives {
  word: string;
  /** The lexicon knows the word (or, for the last word, a word starting with it). */
  known: boolean;
  similar: string[];
  /** For the last word: known words starting with it (the text side has no prefix matching). */
  completions?: string[];
}

/** The keyword as the two sides run it. */
export interface Keyword {
  /** Over names, tags and descriptions (`resources.search`): the last word as a prefix. */
  tsQuery: string;
  /** Over the documents' text (`resource_text_search`): exact terms only, the prefix expanded. */
  textQuery: string;
}

const isWord = (term: string) => /^[\p{L}\p{N}]+$/u.test(term);

/**
 * The text side's `to_tsquery` text: every word ANDed, each ORed with its stand-ins (an unknown word
 * with its closest known words; the last word with the known words it begins). Exact terms only: a
 * prefix (`:*`) makes the GIN match recheck every candidate row, which reads each document's vector.
 */
export function textTsQuery(words: readonly WordAlternatives[]): string {
  return words
    .map(({ word, known, similar, completions }, index) => {
      const last = index === words.length - 1;
      const terms = new Set([word, ...(known ? [] : similar), ...(last ? (completions ?? []) : [])].filter(isWord));
      return terms.size > 1 ? `(${[...terms].join(' | ')})` : word;
    })
    .join(' & ');
}

/**
 * `to_tsquery` text: every word ANDed, the last as a prefix, an unknown word ORed with its closest
 * known words. Words are letters and digits only (catalog.filters.ts), so no tsquery syntax gets in.
 */
export function keywordTsQuery(words: readonly WordAlternatives[]): string {
  return words
    .map(({ word, known, similar }, index) => {
      const own = index === words.length - 1 ? `${word}:*` : word;
      const alternatives = known ? [] : similar.filter((term) => /^[\p{L}\p{N}]+$/u.test(term));
      return alternatives.length ? `(${[own, ...alternatives].join(' | ')})` : own;
    })
    .join(' & ');
}

export interface SearchStatement {
  text: string;
  values: unknown[];
}

/** The lexicon lookup: for each keyword word, whether it is known and its closest known words. */
export function alternativesSql(organizationId: string, words: readonly string[]): SearchStatement {
  return {
    text: `SELECT q.word,
                  EXISTS (SELECT 1 FROM resource_search_terms t WHERE t.organization_id = $1
                           AND (t.term = q.word OR (q.ord = $3 AND t.term LIKE q.word || '%'))) AS known,
                  ARRAY(SELECT near.term FROM (SELECT t.term FROM resource_search_terms t WHERE t.organization_id = $1
                                                ORDER BY t.term <-> q.word LIMIT ${ALTERNATIVES}) near
                         WHERE similarity(near.term, q.word) >= ${TYPO_THRESHOLD}) AS similar,
                  ARRAY(SELECT t.term FROM resource_search_terms t WHERE q.ord = $3 AND t.organization_id = $1
                           AND t.term LIKE q.word || '%' ORDER BY length(t.term), t.term LIMIT ${COMPLETIONS}) AS completions
             FROM unnest($2::text[]) WITH ORDINALITY AS q(word, ord) ORDER BY q.ord`,
    values: [organizationId, words, words.length],
  };
}

/** The page's statement: ids in order with the total over every matching row (a window count). */
export function searchSql(
  reader: LibraryReader,
  query: CatalogQuery,
  page: { limit: number; offset: number },
  keyword?: Keyword,
): SearchStatement {
  const binds = new Binds();
  const where = [reader.seeSql(binds, 'r')];
  let rank = '0';
  let from = 'resources r';
  let body = '';
  if (query.text) {
    if (keyword) {
      const tsq = `to_tsquery('english', ${binds.add(keyword.tsQuery)})`;
      const organization = binds.add(reader.organizationId);
      // Resources whose current version's text matches, of those the reader may open: one GIN match
      // over one row per version (resource_text_matches over resource_text_search), exact terms, so no
      // vector is read.
      body = `WITH body AS (
                SELECT t.resource_id
                  FROM resource_text_matches(${organization}::uuid, to_tsquery('english', ${binds.add(keyword.textQuery)})) t
                  JOIN resources r ON r.id = t.resource_id
                  JOIN resource_versions v ON v.id = t.version_id AND v.version = r.current_version
                 WHERE ${reader.openSql(binds, 'r')}
              ), matched AS (
                SELECT r.id FROM resources r WHERE r.search @@ ${tsq} AND r.organization_id = ${organization}
                UNION
                SELECT resource_id FROM body
              )
              `;
      from = 'matched m JOIN resources r ON r.id = m.id';
      // metadata matches by rank, then text-only ones (0): ranking those would read every matching
      // document's text, so they come newest first
      rank = `CASE WHEN r.search @@ ${tsq} THEN 1 + ts_rank(r.search, ${tsq}) ELSE 0 END`;
    } else {
      where.push('FALSE'); // a keyword with no letters or digits matches nothing
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
  for (const condition of query.publishedAt)
    where.push(`r.published_at ${COMPARE[condition.op]} ${binds.add(condition.value)}::timestamptz`);

  const newest = 'r.published_at DESC NULLS LAST, r.created_at DESC, r.id DESC';
  const order = {
    relevance: query.text ? `rank DESC, ${newest}` : newest,
    newest,
    downloads: 'r.download_count DESC, r.id DESC',
    name: 'lower(r.name) ASC, r.id ASC',
  }[query.sort];
  const text = `${body}SELECT r.id, ${rank} AS rank, count(*) OVER ()::int AS total
                  FROM ${from}
                 WHERE ${where.join(' AND ')}
                 ORDER BY ${order}
                 LIMIT ${binds.add(page.limit)} OFFSET ${binds.add(page.offset)}`;
  return { text, values: binds.values };
}

/** The count alone, for a page past the end (the window count has no row to ride on). */
function countSql(statement: SearchStatement): SearchStatement {
  const orderAt = statement.text.lastIndexOf('ORDER BY');
  return {
    text: `SELECT count(*)::int AS total FROM (${statement.text.slice(0, orderAt)}) matching`,
    values: statement.values.slice(0, -2),
  };
}

export interface SearchPage {
  ids: string[];
  total: number;
  /** The keyword as run (widened for typos), for the page's content matches. */
  keyword?: Keyword;
}

/** The keyword as both sides run it, widened for unknown words (one lexicon query); undefined when it has no words. */
export async function resolveKeyword(
  sql: Sql,
  organizationId: string,
  words: readonly string[],
  transaction?: Transaction,
): Promise<Keyword | undefined> {
  if (!words.length) return undefined;
  const statement = alternativesSql(organizationId, words);
  const rows = await sql.rows<WordAlternatives>(statement.text, statement.values, transaction);
  return { tsQuery: keywordTsQuery(rows), textQuery: textTsQuery(rows) };
}

/** Runs the search: the lexicon lookup (with a keyword), then the page with its total. */
export async function searchResourceIds(
  deps: { sql: Sql },
  reader: LibraryReader,
  query: CatalogQuery,
  page: { limit: number; offset: number },
): Promise<SearchPage> {
  const keyword = query.text ? await resolveKeyword(deps.sql, reader.organizationId, query.words) : undefined;
  const statement = searchSql(reader, query, page, keyword);
  const rows = await deps.sql.rows<{ id: string; total: number }>(statement.text, statement.values);
  if (rows.length || page.offset === 0)
    return { ids: rows.map((row) => row.id), total: rows[0]?.total ?? 0, ...(keyword ? { keyword } : {}) };
  const count = countSql(statement);
  return { ids: [], total: (await deps.sql.one<{ total: number }>(count.text, count.values))?.total ?? 0 };
}

/** Pages shown per resource, best first (the rest are counted in `pageCount`). */
export const MATCHED_PAGES_SHOWN = 5;
/** Marks ts_headline puts around matched words: private-use characters, removed from the text first. */
export const MARK_START = '\uE000';
export const MARK_STOP = '\uE001';
const HEADLINE_OPTIONS = `StartSel=${MARK_START}, StopSel=${MARK_STOP}, MaxWords=28, MinWords=12, ShortWord=3, MaxFragments=2, FragmentDelimiter=" … "`;

export interface ContentMatchRow {
  resource_id: string;
  page_number: number;
  location_kind: string;
  /** ts_headline's text with MARK_START / MARK_STOP around the matched words. */
  headline: string;
  page_count: number;
}

/**
 * The page's content matches: for each resource of `ids` the reader may open, its matching pages of
 * the current version (a page's best passage), the best MATCHED_PAGES_SHOWN with a highlighted
 * snippet, and how many pages matched. ts_headline runs only on the pages shown.
 */
export function contentMatchesSql(reader: LibraryReader, ids: readonly string[], keyword: Keyword): SearchStatement {
  const binds = new Binds();
  // a page matches with any of the words (a document matches when all are in its text, maybe on several
  // pages); pages with more of them rank first
  const tsq = `to_tsquery('english', ${binds.add(keyword.textQuery.replaceAll(' & ', ' | '))})`;
  const text = `
    SELECT resource_id, page_number, location_kind, page_count,
           ts_headline('english', translate(content, '${MARK_START}${MARK_STOP}', ''), ${tsq}, ${binds.add(HEADLINE_OPTIONS)}) AS headline
      FROM (SELECT pages.*, row_number() OVER (PARTITION BY resource_id ORDER BY rank DESC, page_number) AS pos,
                   count(*) OVER (PARTITION BY resource_id)::int AS page_count
              FROM (SELECT DISTINCT ON (p.resource_id, p.page_number)
                           p.resource_id, p.page_number, p.location_kind, p.content, ts_rank(p.search, ${tsq}, 32) AS rank
                      FROM resource_passages p
                      JOIN resources r ON r.id = p.resource_id
                      JOIN resource_versions v ON v.id = p.version_id AND v.version = r.current_version
                     WHERE p.organization_id = ${binds.add(reader.organizationId)} AND p.resource_id = ANY(${binds.add(ids)}::uuid[])
                       AND p.search @@ ${tsq} AND ${reader.openSql(binds, 'r')}
                     ORDER BY p.resource_id, p.page_number, rank DESC, p.ordinal) pages) ranked
     WHERE pos <= ${MATCHED_PAGES_SHOWN}
     ORDER BY resource_id, pos`;
  return { text, values: binds.values };
}

export async function loadContentMatches(
  deps: { sql: Sql },
  reader: LibraryReader,
  ids: readonly string[],
  keyword: Keyword,
): Promise<ContentMatchRow[]> {
  if (!ids.length) return [];
  const statement = contentMatchesSql(reader, ids, keyword);
  return deps.sql.rows<ContentMatchRow>(statement.text, statement.values);
}
