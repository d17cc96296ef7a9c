// Hybrid passage retrieval for the library chat: full-text candidates and vector candidates, fused
// with reciprocal rank fusion and re-ranked by similarity and word coverage (RERANK_POOL below), in ONE
// statement that filters by the reader's access inside the SQL.
//
// Access: every candidate row joins its resource and passes `reader.openSql` (organization, draft,
// level, member status and tier, entitlements) and the optional category scope before it is ranked,
// so a passage the asker may not open is never read out of the database, let alone shown to a model.
// Only passages of the resource's current version count (ingestion replaces old ones; this makes a
// half-finished replacement invisible too).
//
// Keyword side: `websearch_to_tsquery('english', q)` parses the question; its AND of terms is turned
// into an OR so a natural question ("how long do I have to ask for a refund?") still finds the page
// that has most of its words, and `ts_rank` orders them (the GIN index on `search` serves the match).
// Vector side: `embedding <=> $q::vector` (cosine distance, HNSW index), only over rows embedded by the
// current embedder (`embedding_model`): two models' vectors are different spaces. pgvector's iterative
// index scan keeps reading the HNSW graph until enough rows pass the access filter.
// Without pgvector (the column is absent) retrieval is keyword-only and says so.
import type { Sequelize } from 'sequelize';
import { toVectorLiteral, type Embedder } from '../../integrations/embeddings/embedder.ts';
import { inspectVectorSchema } from '../../shared/vector-schema.ts';
import { Binds, type Sql } from '../../shared/sql.ts';
import type { LibraryReader } from '../library/index.ts';

export interface RetrievedPassage {
  id: string;
  resourceId: string;
  resourceName: string;
  pageNumber: number;
  locationKind: string;
  headingPath: string | null;
  content: string;
  /** Position in the keyword ranking (1 = best), null when not a keyword candidate. */
  keywordRank: number | null;
  /** Position in the vector ranking (1 = best), null when not a vector candidate. */
  vectorRank: number | null;
  /** Cosine similarity to the question (1 - distance), null without a vector. */
  similarity: number | null;
  /** Share of the question's content words (lexemes) found in the passage, 0..1. */
  coverage: number;
  /** Reciprocal rank fusion score (it chose the pool; the order is the re-ranking's, see RERANK_POOL). */
  score: number;
}

export interface RetrievalQuery {
  query: string;
  /** Only resources linked to one of these categories (the chat's `resourceScope`). */
  categoryIds?: readonly string[];
  /** Passages returned (default 8). */
  limit?: number;
  /** Candidates taken from each side before fusion (default 40). */
  candidates?: number;
}

export interface RetrievalResult {
  /** Best first, in the re-ranked order. */
  passages: RetrievedPassage[];
  /** true when no vector search ran (no pgvector, or the embedder failed): keyword only. */
  keywordOnly: boolean;
  /** Number of content words in the question (0: nothing to search for by keyword). */
  queryTerms: number;
}

/** The constant of reciprocal rank fusion (Cormack et al.): damps the weight of the very top ranks. */
const RRF_K = 60;

/**
 * Passages kept by the fusion and re-ranked. RRF chooses the pool; the order within it is a convex
 * combination of the question's cosine similarity and the share of its content words the passage
 * contains (coverage). RRF alone ranked any passage that shares one common word with the question
 * above better vector matches (one keyword vote is worth the gap between vector ranks 1 and 10):
 * recall@5 on the evaluation set was 0.89; re-ranked, 0.96 for any similarity weight from 0.6 to 0.9
 * (a convex combination of scores beat RRF in Bruch et al., 2023, "An analysis of fusion functions
 * for hybrid retrieval"). Both values are 0..1, so no normalisation is needed.
 */
const RERANK_POOL = 24;
const SIMILARITY_WEIGHT = 0.7;
/** Passages counted per word for its weight (see termWeights). */
const DF_CAP = 5000;

interface Row {
  id: string;
  resource_id: string;
  resource_name: string;
  page_number: number;
  location_kind: string;
  heading_path: string | null;
  content: string;
  kw_pos: string | null;
  vec_pos: string | null;
  distance: number | null;
  coverage: number;
  score: number;
  query_terms: number;
}

export class PassageRetrieval {
  private vectorReady: Promise<boolean> | undefined;

  constructor(private readonly deps: { sql: Sql; sequelize: Sequelize; embedder: Embedder }) {}

  /** Whether the passages' vector column exists (checked once per process; pgvector does not come and go). */
  vectorAvailable(): Promise<boolean> {
    this.vectorReady ??= inspectVectorSchema(this.deps.sequelize).then(
      (status) => status.extension === 'installed' && !status.pending.includes('resource_passages.embedding'),
    );
    this.vectorReady.catch(() => (this.vectorReady = undefined));
    return this.vectorReady;
  }

  /** Embeds the question; null when vectors are off or the embedder fails (retrieval goes on by keyword). */
  async embedQuery(query: string): Promise<number[] | null> {
    if (!(await this.vectorAvailable())) return null;
    try {
      const [vector] = await this.deps.embedder.embed([query]);
      return vector ?? null;
    } catch {
      return null;
    }
  }

  async retrieve(reader: LibraryReader, input: RetrievalQuery, vector?: number[] | null): Promise<RetrievalResult> {
    const queryVector = vector === undefined ? await this.embedQuery(input.query) : vector;
    const limit = input.limit ?? 8;
    const candidates = input.candidates ?? 40;
    const binds = new Binds();
    const q = binds.add(input.query);
    // inline (not a CTE column) so the planner sees an indexable condition for the GIN index
    const tsquery = `NULLIF(replace(replace(websearch_to_tsquery('english', ${q}::text)::text, ' & ', ' | '), '!', ''), '')::tsquery`;
    const access = (alias: string, resourceAlias: string) => {
      const clauses = [
        // The tenant is the resource's (openSql binds organization_id), and a passage belongs to its
        // resource by foreign key. The passage's own organization_id is deliberately not compared:
        // the planner would derive a constant from it and take the passages' (organization, resource)
        // index as its way in, reading every passage of the organization instead of the GIN or HNSW
        // index's few candidates.
        reader.openSql(binds, resourceAlias),
        `EXISTS (SELECT 1 FROM resource_versions v WHERE v.id = ${alias}.version_id AND v.version = ${resourceAlias}.current_version)`,
      ];
      if (input.categoryIds?.length) {
        // as the library's category filter: an archived category scopes to nothing but for managers
        const active = reader.standing === 'manager' ? '' : ' AND c.archived_at IS NULL';
        const scope = binds.add(input.categoryIds);
        clauses.push(
          `EXISTS (SELECT 1 FROM resource_category_links l JOIN resource_categories c ON c.id = l.category_id
                    WHERE l.resource_id = ${resourceAlias}.id AND l.category_id = ANY(${scope}::uuid[])${active})`,
        );
      }
      return clauses.join(' AND ');
    };
    const keyword = `
      SELECT id, row_number() OVER (ORDER BY rank DESC, id) AS pos FROM (
        SELECT p.id, ts_rank(p.search, ${tsquery}) AS rank
          FROM resource_passages p JOIN resources r ON r.id = p.resource_id
         WHERE p.search @@ ${tsquery} AND ${access('p', 'r')}
         ORDER BY rank DESC, p.id LIMIT ${binds.add(candidates)}
      ) k`;
    const vectorBind = queryVector ? binds.add(toVectorLiteral(queryVector)) : null;
    const model = vectorBind ? binds.add(this.deps.embedder.model) : null; // bound only when the SQL uses it
    const vectorSide = vectorBind
      ? `
      SELECT id, distance, row_number() OVER (ORDER BY distance, id) AS pos FROM (
        SELECT p.id, p.embedding <=> ${vectorBind}::vector AS distance
          FROM resource_passages p JOIN resources r ON r.id = p.resource_id
         WHERE p.embedding_model = ${model} AND ${access('p', 'r')}
         ORDER BY distance LIMIT ${binds.add(candidates)}
      ) s`
      : `SELECT NULL::uuid AS id, NULL::float8 AS distance, NULL::bigint AS pos WHERE false`;
    // similarity for every pooled passage: the vector side's distance, computed for keyword candidates
    // the vector side did not reach (only vectors of this embedder)
    const similarity = vectorBind
      ? `CASE WHEN f.distance IS NOT NULL THEN 1 - f.distance WHEN p.embedding_model = ${model} THEN 1 - (p.embedding <=> ${vectorBind}::vector) END`
      : 'NULL::float8';
    const coverage = `CASE WHEN cardinality(tsq.terms) = 0 THEN 0
                  ELSE (SELECT count(*) FROM unnest(tsvector_to_array(p.search)) l WHERE l = ANY(tsq.terms))::float8 / cardinality(tsq.terms) END`;
    // keyword-only: the fused order is the full-text order, nothing to re-rank with
    const relevance = vectorBind
      ? `${SIMILARITY_WEIGHT} * coalesce(x.similarity, 0) + ${1 - SIMILARITY_WEIGHT} * x.coverage`
      : 'x.score';
    const text = `
      WITH tsq AS (
             SELECT ARRAY(SELECT lexeme FROM unnest(to_tsvector('english', ${q}::text))) AS terms
           ),
           kw AS (${keyword}),
           vec AS (${vectorSide}),
           pool AS (
             SELECT coalesce(kw.id, vec.id) AS id, kw.pos AS kw_pos, vec.pos AS vec_pos, vec.distance,
                    coalesce(1.0 / (${RRF_K} + kw.pos), 0) + coalesce(1.0 / (${RRF_K} + vec.pos), 0) AS score
               FROM kw FULL JOIN vec ON vec.id = kw.id
              ORDER BY score DESC, id LIMIT ${binds.add(Math.max(limit, RERANK_POOL))}
           ),
           scored AS (
             SELECT f.id, f.kw_pos, f.vec_pos, f.score, ${similarity} AS similarity, ${coverage} AS coverage, cardinality(tsq.terms) AS query_terms
               FROM pool f JOIN resource_passages p ON p.id = f.id, tsq
           )
      SELECT p.id, p.resource_id, r.name AS resource_name, p.page_number, p.location_kind, p.heading_path, p.content,
             x.kw_pos, x.vec_pos, 1 - x.similarity AS distance, x.score::float8 AS score, x.coverage, x.query_terms
        FROM scored x JOIN resource_passages p ON p.id = x.id JOIN resources r ON r.id = p.resource_id
       ORDER BY ${relevance} DESC, x.score DESC, p.id
       LIMIT ${binds.add(limit)}`;
    const rows = queryVector
      ? // relaxed_order: pgvector 0.8's iterative scan reads on through the HNSW graph until enough rows
        // pass the access filter (a plain scan stops after ef_search and may return too few); the
        // outer ORDER BY puts them back in exact order
        await this.deps.sequelize.transaction(async (transaction) => {
          await this.deps.sql.query(`SET LOCAL hnsw.iterative_scan = relaxed_order`, [], transaction);
          return this.deps.sql.rows<Row>(text, binds.values, transaction);
        })
      : await this.deps.sql.rows<Row>(text, binds.values);
    const queryTerms = rows[0]?.query_terms ?? (await this.countTerms(input.query));
    return {
      keywordOnly: !queryVector,
      queryTerms,
      passages: rows.map((row) => ({
        id: row.id,
        resourceId: row.resource_id,
        resourceName: row.resource_name,
        pageNumber: row.page_number,
        locationKind: row.location_kind,
        headingPath: row.heading_path,
        content: row.content,
        keywordRank: row.kw_pos === null ? null : Number(row.kw_pos),
        vectorRank: row.vec_pos === null ? null : Number(row.vec_pos),
        similarity: row.distance === null ? null : 1 - Number(row.distance),
        coverage: Number(row.coverage),
        score: Number(row.score),
      })),
    };
  }

  /**
   * How specific each word is in the reader's library, as an inverse document frequency scaled to 0..1
   * (1: no passage has it; 0: every passage has it, or it is a stop word). Counts are capped
   * (DF_CAP): past a few thousand passages a word is common whatever the exact number, and the cap
   * bounds the work on large libraries. Counted over the organization's passages, not the reader's:
   * only a weight comes out of it, never a passage.
   */
  async termWeights(reader: LibraryReader, words: readonly string[]): Promise<Map<string, number>> {
    const unique = [...new Set(words)];
    if (!unique.length) return new Map();
    const rows = await this.deps.sql.rows<{ w: string; df: string | null; n: string }>(
      `SELECT w, CASE WHEN numnode(plainto_tsquery('english', w)) = 0 THEN NULL ELSE
                 (SELECT count(*) FROM (SELECT 1 FROM resource_passages p
                    WHERE p.organization_id = $1 AND p.search @@ plainto_tsquery('english', w) LIMIT ${DF_CAP}) c) END AS df,
              (SELECT count(*) FROM (SELECT 1 FROM resource_passages p WHERE p.organization_id = $1 LIMIT ${DF_CAP * 20}) t) AS n
         FROM unnest($2::text[]) AS w`,
      [reader.organizationId, unique],
    );
    const weights = new Map<string, number>();
    for (const row of rows) {
      const n = Number(row.n);
      const max = Math.log((n + 1) / 0.5);
      weights.set(row.w, row.df === null ? 0 : Math.max(0, Math.log((n + 1) / (Number(row.df) + 0.5)) / max));
    }
    return weights;
  }

  /**
   * Lines that open or close passages on two pages or more of one resource: running titles, headers,
   * footers ("Annual Report 2025", "Confidential"). An extractive answer never quotes them.
   */
  async repeatedLines(resourceIds: readonly string[]): Promise<Set<string>> {
    const ids = [...new Set(resourceIds)];
    if (!ids.length) return new Set();
    const rows = await this.deps.sql.rows<{ line: string }>(
      `SELECT line FROM (
         SELECT p.resource_id, p.page_number, btrim(x.line) AS line
           FROM resource_passages p
          CROSS JOIN LATERAL (VALUES (split_part(p.content, E'\n', 1)), (substring(p.content from '[^\n]*$'))) AS x(line)
          WHERE p.resource_id = ANY($1::uuid[])
       ) l
        WHERE length(line) BETWEEN 1 AND 120
        GROUP BY resource_id, line HAVING count(DISTINCT page_number) >= 2`,
      [ids],
    );
    return new Set(rows.map((row) => row.line));
  }

  private async countTerms(query: string): Promise<number> {
    const row = await this.deps.sql.one<{ n: number }>(
      `SELECT cardinality(ARRAY(SELECT lexeme FROM unnest(to_tsvector('english', $1)))) AS n`,
      [query],
    );
    return row?.n ?? 0;
  }
}
