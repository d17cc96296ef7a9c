import type { MigrationContext } from '../src/shared/migrator.ts';

// Keyword search over the library (GET /api/resources?q=): a weighted tsvector on resources (name A,
// tags B, description C) for ranked full-text search with prefix matching, kept by a trigger (a
// generated column needs immutable expressions; array_to_string over the tags is not declared so).
//
// Typo tolerance: the words of names and tags go into a per-organization lexicon with a trigram index
// (pg_trgm). A keyword word the lexicon does not know is widened to its closest known words before
// the full-text query runs, so the search itself stays one GIN-indexed match (the PostgreSQL manual's
// advice for spelling suggestions) instead of a trigram comparison against every resource.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    ALTER TABLE resources ADD COLUMN search tsvector;
    -- words only ever added: a word whose resources are gone widens a typo to nothing that matches
    CREATE TABLE resource_search_terms (
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      term text COLLATE "C" NOT NULL CHECK (length(term) BETWEEN 3 AND 50),
      PRIMARY KEY (organization_id, term)
    );
    -- GiST: nearest words by trigram distance (KNN, the <-> operator), without a session-wide similarity threshold
    CREATE INDEX resource_search_terms_trgm_idx ON resource_search_terms USING gist (term gist_trgm_ops);
    CREATE FUNCTION resources_search_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
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
    CREATE TRIGGER resources_search_refresh BEFORE INSERT OR UPDATE OF name, description, tags ON resources
      FOR EACH ROW EXECUTE FUNCTION resources_search_refresh();
    UPDATE resources SET name = name;
    CREATE INDEX resources_search_idx ON resources USING gin (search);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP TRIGGER resources_search_refresh ON resources;
    DROP FUNCTION resources_search_refresh();
    DROP TABLE resource_search_terms;
    ALTER TABLE resources DROP COLUMN search;
  `);
}
