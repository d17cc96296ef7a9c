// GET /api/resources query string -> a search: the keyword `q`, the named sort and the filters, in the
// grammar every list uses (crud.filters.ts: `type=a` or `type[]=a&type[]=b`, `publishedAt[after]=...`).
// Pure; every refusal names the parameter.
import { errors } from '../../shared/errors.ts';
import type { FieldSpec } from '../crud/index.ts';
import { parseListQuery, type Condition } from '../crud/index.ts';
import { accessLevelsLabelled, type AccessLevel } from '../library/index.ts';
import { RESOURCE_STATUSES, RESOURCE_TYPES } from '../library/index.ts';

export const CATALOG_SORTS = ['relevance', 'newest', 'downloads', 'name'] as const;
export type CatalogSort = (typeof CATALOG_SORTS)[number];

/** Filters by wire name; `accessLevel` takes a stored level or a label of either vocabulary. */
export const CATALOG_FIELDS: Readonly<Record<string, FieldSpec>> = {
  category: { type: 'uuid', filter: 'exact' },
  type: { type: 'string', filter: 'exact', values: RESOURCE_TYPES },
  accessLevel: { type: 'string', filter: 'exact' },
  publishedAt: { type: 'datetime', filter: 'date' },
  tag: { type: 'string', filter: 'exact' },
  status: { type: 'string', filter: 'exact', values: RESOURCE_STATUSES },
};

export interface CatalogQuery {
  /** Keyword words (letters and digits only; at most 10), or none. */
  words: string[];
  /** The keyword as typed (trimmed, lower case), for the typo-tolerant match. */
  text: string | null;
  sort: CatalogSort;
  categories?: string[];
  types?: string[];
  accessLevels?: AccessLevel[];
  tags?: string[];
  statuses?: string[];
  publishedAt: Array<Extract<Condition, { kind: 'compare' }>>;
}

const MAX_WORDS = 10;

/** Words of a keyword: runs of letters and digits (so nothing reaches tsquery syntax), lower case. */
export function keywordWords(q: string): string[] {
  return (q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_WORDS);
}

export function parseCatalogQuery(query: Readonly<Record<string, unknown>>): CatalogQuery {
  const { q, sort, ...rest } = query;
  if (q !== undefined && typeof q !== 'string') throw errors.invalidFilter('q', 'takes one text value');
  if (sort !== undefined && !CATALOG_SORTS.includes(sort as CatalogSort))
    throw errors.invalidFilter('sort', `must be one of ${CATALOG_SORTS.join(', ')}`);
  const text = typeof q === 'string' && q.trim() ? q.trim().toLowerCase().slice(0, 200) : null;
  const words = text ? keywordWords(text) : [];
  const parsed = parseListQuery(rest, CATALOG_FIELDS, []);
  const result: CatalogQuery = {
    words,
    text,
    sort: (sort as CatalogSort | undefined) ?? (text ? 'relevance' : 'newest'),
    publishedAt: [],
  };
  for (const condition of parsed.conditions) {
    if (condition.kind === 'compare') result.publishedAt.push(condition);
    if (condition.kind !== 'in') continue;
    const values = condition.values.map(String);
    switch (condition.field) {
      case 'category':
        result.categories = values;
        break;
      case 'type':
        result.types = values;
        break;
      case 'accessLevel':
        result.accessLevels = [
          ...new Set(
            values.flatMap((value) => {
              const levels = accessLevelsLabelled(value);
              if (!levels.length)
                throw errors.invalidFilter(
                  'accessLevel',
                  `${JSON.stringify(value)} is not an access level (public, preview, members, premium, paid, or a label of either vocabulary)`,
                );
              return levels;
            }),
          ),
        ];
        break;
      case 'tag':
        result.tags = values;
        break;
      case 'status':
        result.statuses = values;
        break;
    }
  }
  return result;
}
