import type { MigrationContext } from '../src/shared/migrator.ts';

// One tsvector per document version for the search inside documents (GET /api/resources?q=).
//
// Matching the passages themselves costs about 15 µs per matching passage (heap fetch, join, rank): a
// word found on 40,000 of 200,000 passages took a second (bench library-search). One row per version,
// with the whole text's lexemes stripped of positions (strip: small, and ranking is not done on it), is
// a GIN match over at most one row per document, and exact terms need no recheck, so counting the
// matching documents reads the index and a narrow heap, never the vectors (the keyword's last-word
// prefix is expanded into known words from the lexicon first: a prefix query would recheck every row).
//
// Kept by statement-level triggers on resource_passages (transition tables): ingestion's one INSERT of a
// version's passages and its DELETE of the old ones rebuild the rows of the versions they touch; the
// passages stay the source of truth (pages and snippets are read from them).
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE resource_text_search (
      version_id uuid PRIMARY KEY REFERENCES resource_versions(id) ON DELETE CASCADE,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      resource_id uuid NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
      search tsvector NOT NULL
    );
    CREATE INDEX resource_text_search_idx ON resource_text_search USING gin (search);
    CREATE INDEX resource_text_search_resource_idx ON resource_text_search (resource_id);

    -- The text match, always through the GIN index: the planner does not count reading a vector out of
    -- TOAST, so for a frequent word it takes a sequential scan, which decompresses every document's
    -- vector (a second here for 10,000 documents) where the bitmap scan reads none (exact terms, no
    -- recheck). enable_seqscan applies inside this function only.
    CREATE FUNCTION resource_text_matches(organization uuid, query tsquery)
      RETURNS TABLE (resource_id uuid, version_id uuid) LANGUAGE sql STABLE ROWS 1000 SET enable_seqscan = off
      AS $$ SELECT t.resource_id, t.version_id FROM resource_text_search t WHERE t.organization_id = organization AND t.search @@ query $$;
    CREATE FUNCTION resource_text_search_rebuild(versions uuid[]) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM resource_text_search WHERE version_id = ANY(versions);
      INSERT INTO resource_text_search (version_id, organization_id, resource_id, search)
        SELECT p.version_id, min(p.organization_id::text)::uuid, min(p.resource_id::text)::uuid,
               strip(to_tsvector('english', string_agg(coalesce(p.heading_path, '') || ' ' || p.content, ' ' ORDER BY p.ordinal)))
          FROM resource_passages p
         WHERE p.version_id = ANY(versions)
         GROUP BY p.version_id;
    END $$;
    CREATE FUNCTION resource_passages_text_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM resource_text_search_rebuild(ARRAY(SELECT DISTINCT version_id FROM new_passages));
      RETURN NULL;
    END $$;
    CREATE FUNCTION resource_passages_text_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM resource_text_search_rebuild(ARRAY(SELECT DISTINCT version_id FROM old_passages));
      RETURN NULL;
    END $$;
    CREATE TRIGGER resource_passages_text_inserted AFTER INSERT ON resource_passages
      REFERENCING NEW TABLE AS new_passages FOR EACH STATEMENT EXECUTE FUNCTION resource_passages_text_inserted();
    CREATE TRIGGER resource_passages_text_deleted AFTER DELETE ON resource_passages
      REFERENCING OLD TABLE AS old_passages FOR EACH STATEMENT EXECUTE FUNCTION resource_passages_text_deleted();
    SELECT resource_text_search_rebuild(ARRAY(SELECT DISTINCT version_id FROM resource_passages));
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP TRIGGER resource_passages_text_deleted ON resource_passages;
    DROP TRIGGER resource_passages_text_inserted ON resource_passages;
    DROP FUNCTION resource_passages_text_deleted();
    DROP FUNCTION resource_passages_text_inserted();
    DROP FUNCTION resource_text_search_rebuild(uuid[]);
    DROP FUNCTION resource_text_matches(uuid, tsquery);
    DROP TABLE resource_text_search;
  `);
}
