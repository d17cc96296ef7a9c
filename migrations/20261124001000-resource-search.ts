import type { MigrationContext } from '../src/shared/migrator.ts';

// Keyword search over the library (GET /api/resources?q=): a weighted tsvector (name A, tags B,
// description C) for ranked full-text search with prefix matching, and a short `search_text` (name and
// tags) with a trigram index for typo tolerance (pg_trgm's word similarity). Both are kept by a trigger:
// a generated column needs immutable expressions, and array_to_string over the tags is not declared so.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    ALTER TABLE resources ADD COLUMN search tsvector, ADD COLUMN search_text text;
    CREATE FUNCTION resources_search_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.search :=
        setweight(to_tsvector('english', coalesce(NEW.name, '')), 'A') ||
        setweight(to_tsvector('english', coalesce(array_to_string(NEW.tags, ' '), '')), 'B') ||
        setweight(to_tsvector('english', coalesce(NEW.description, '')), 'C');
      NEW.search_text := lower(coalesce(NEW.name, '') || ' ' || coalesce(array_to_string(NEW.tags, ' '), ''));
      RETURN NEW;
    END $$;
    CREATE TRIGGER resources_search_refresh BEFORE INSERT OR UPDATE OF name, description, tags ON resources
      FOR EACH ROW EXECUTE FUNCTION resources_search_refresh();
    UPDATE resources SET name = name;
    CREATE INDEX resources_search_idx ON resources USING gin (search);
    CREATE INDEX resources_search_text_trgm_idx ON resources USING gin (search_text gin_trgm_ops);
    CREATE INDEX resources_org_status_idx ON resources (organization_id, status, access_level);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP INDEX resources_org_status_idx;
    DROP TRIGGER resources_search_refresh ON resources;
    DROP FUNCTION resources_search_refresh();
    ALTER TABLE resources DROP COLUMN search_text, DROP COLUMN search;
  `);
}
