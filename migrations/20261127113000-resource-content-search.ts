import type { MigrationContext } from '../src/shared/migrator.ts';

// Search inside documents (GET /api/resources?q= over the extracted text, issue 27).
//
// 1. File-name-like tokens in names, tags and descriptions are split: PostgreSQL's parser keeps
//    `policy.pdf` (or `bylaws_2024.docx`, `a/b`) as one `file` token, so `policy` did not find it. The
//    keyword side already splits on every non-letter (catalog.filters.ts), so the indexed side now splits
//    on ASCII punctuation too ([:punct:] is ASCII-only in PostgreSQL's regex, so `café` stays whole).
// 2. The lexicon of known words (typo tolerance) takes the words of the passages too, through one
//    statement-level trigger per insert (a transition table), so ingestion's one INSERT of a document's
//    passages is one lexicon insert, and ingestion itself is untouched. Pure numbers are left out of
//    the passages' words: a typo of a number is not a near number. Existing passages are backfilled.
//
// The passages' own tsvector (`resource_passages.search`, generated) and its GIN index
// (resource_passages_search_idx, 20261124000100-library.ts) are what the content search matches on:
// the chat's keyword retrieval uses the same column, so no second copy of every passage's vector is kept.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE OR REPLACE FUNCTION resources_search_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.search :=
        setweight(to_tsvector('english', regexp_replace(coalesce(NEW.name, ''), '[[:punct:]]+', ' ', 'g')), 'A') ||
        setweight(to_tsvector('english', regexp_replace(coalesce(array_to_string(NEW.tags, ' '), ''), '[[:punct:]]+', ' ', 'g')), 'B') ||
        setweight(to_tsvector('english', regexp_replace(coalesce(NEW.description, ''), '[[:punct:]]+', ' ', 'g')), 'C');
      INSERT INTO resource_search_terms (organization_id, term)
        SELECT DISTINCT NEW.organization_id, word
          FROM regexp_split_to_table(lower(coalesce(NEW.name, '') || ' ' || coalesce(array_to_string(NEW.tags, ' '), '')), '[^[:alnum:]]+') AS word
         WHERE length(word) BETWEEN 3 AND 50
        ON CONFLICT DO NOTHING;
      RETURN NEW;
    END $$;
    UPDATE resources SET name = name;

    CREATE FUNCTION resource_passages_lexicon() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO resource_search_terms (organization_id, term)
        SELECT DISTINCT n.organization_id, word
          FROM new_passages n,
               regexp_split_to_table(lower(coalesce(n.heading_path, '') || ' ' || n.content), '[^[:alnum:]]+') AS word
         WHERE length(word) BETWEEN 3 AND 50 AND word !~ '^[0-9]+$'
        ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$;
    CREATE TRIGGER resource_passages_lexicon AFTER INSERT ON resource_passages
      REFERENCING NEW TABLE AS new_passages FOR EACH STATEMENT EXECUTE FUNCTION resource_passages_lexicon();
    INSERT INTO resource_search_terms (organization_id, term)
      SELECT DISTINCT p.organization_id, word
        FROM resource_passages p,
             regexp_split_to_table(lower(coalesce(p.heading_path, '') || ' ' || p.content), '[^[:alnum:]]+') AS word
       WHERE length(word) BETWEEN 3 AND 50 AND word !~ '^[0-9]+$'
      ON CONFLICT DO NOTHING;
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP TRIGGER resource_passages_lexicon ON resource_passages;
    DROP FUNCTION resource_passages_lexicon();
    CREATE OR REPLACE FUNCTION resources_search_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.search :=
        setweight(to_tsvector('english', coalesce(NEW.name, '')), 'A') ||
        setweight(to_tsvector('english', coalesce(array_to_string(NEW.tags, ' '), '')), 'B') ||
        setweight(to_tsvector('english', coalesce(NEW.description, '')), 'C');
      INSERT INTO resource_search_terms (organization_id, term)
        SELECT DISTINCT NEW.organization_id, word
          FROM regexp_split_to_table(lower(coalesce(NEW.name, '') || ' ' || coalesce(array_to_string(NEW.tags, ' '), '')), '[^[:alnum:]]+') AS word
         WHERE length(word) BETWEEN 3 AND 50
        ON CONFLICT DO NOTHING;
      RETURN NEW;
    END $$;
    UPDATE resources SET name = name;
  `);
}
