import type { MigrationContext } from '../src/shared/migrator.ts';
import { declareVectorColumn, undeclareVectorColumn } from '../src/shared/vector-schema.ts';

// The resource library's core tables (docs/library.md). One stored access level (the spec's two
// vocabularies are labels of it); a resource's file lives in resource_versions (replacing the file adds a
// version, the old ones stay); usage is recorded as events, not only counters; passages are what the AI
// retrieves (their vector column converges through vector_columns, like every vector column).
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE resource_categories (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
      description text CHECK (length(description) <= 2000),
      icon text CHECK (length(icon) <= 64),
      icon_storage_key text,
      position integer NOT NULL DEFAULT 0,
      archived_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX resource_categories_name_unique ON resource_categories (organization_id, lower(name));
    CREATE INDEX resource_categories_position_idx ON resource_categories (organization_id, position, id);

    CREATE TABLE resources (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      description text CHECK (length(description) <= 5000),
      type text NOT NULL CHECK (type IN ('document', 'video', 'audio', 'image')),
      format text NOT NULL CHECK (format IN ('pdf', 'docx', 'xlsx', 'pptx', 'mp4', 'webm', 'mp3', 'wav', 'png', 'jpeg', 'svg')),
      access_level text NOT NULL DEFAULT 'members' CHECK (access_level IN ('public', 'preview', 'members', 'premium', 'paid')),
      price_amount numeric(15, 3) CHECK (price_amount >= 0),
      price_currency char(3) CHECK (price_currency ~ '^[A-Z]{3}$'),
      status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published')),
      published_at timestamptz,
      tags text[] NOT NULL DEFAULT '{}',
      featured_image_key text,
      thumbnail_key text,
      current_version integer NOT NULL DEFAULT 1 CHECK (current_version >= 1),
      view_count bigint NOT NULL DEFAULT 0,
      download_count bigint NOT NULL DEFAULT 0,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      updated_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      -- paid resources have a price, other levels none (a price on a free resource is refused, not ignored)
      CONSTRAINT resources_price_matches_level CHECK (
        (access_level = 'paid') = (price_amount IS NOT NULL AND price_currency IS NOT NULL)
        AND (price_amount IS NULL) = (price_currency IS NULL)),
      CONSTRAINT resources_published_has_date CHECK ((status = 'published') = (published_at IS NOT NULL))
    );
    CREATE INDEX resources_newest_idx ON resources (organization_id, published_at DESC NULLS LAST, id DESC);
    CREATE INDEX resources_created_idx ON resources (organization_id, created_at DESC, id DESC);
    CREATE INDEX resources_downloads_idx ON resources (organization_id, download_count DESC, id DESC);
    CREATE INDEX resources_tags_idx ON resources USING gin (tags);

    CREATE TABLE resource_versions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      resource_id uuid NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
      version integer NOT NULL CHECK (version >= 1),
      storage_key text NOT NULL,
      file_name text NOT NULL CHECK (length(file_name) BETWEEN 1 AND 255),
      content_type text NOT NULL,
      format text NOT NULL,
      size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
      sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (resource_id, version)
    );

    CREATE TABLE resource_category_links (
      resource_id uuid NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
      category_id uuid NOT NULL REFERENCES resource_categories(id) ON DELETE CASCADE,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      PRIMARY KEY (resource_id, category_id)
    );
    CREATE INDEX resource_category_links_category_idx ON resource_category_links (category_id, resource_id);

    CREATE TABLE resource_entitlements (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      resource_id uuid NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
      member_id uuid NOT NULL REFERENCES members(id) ON DELETE CASCADE,
      reference text CHECK (length(reference) <= 200),
      granted_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX resource_entitlements_active_unique ON resource_entitlements (resource_id, member_id) WHERE revoked_at IS NULL;
    CREATE INDEX resource_entitlements_member_idx ON resource_entitlements (member_id, resource_id) WHERE revoked_at IS NULL;

    -- one row per view or download (a video's range requests are one download); user_id null = anonymous,
    -- visitor_key then tells anonymous visitors apart for unique counts without storing an address
    CREATE TABLE resource_usage_events (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      resource_id uuid NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
      user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      visitor_key text CHECK (length(visitor_key) <= 64),
      kind text NOT NULL CHECK (kind IN ('view', 'download')),
      occurred_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX resource_usage_events_org_time_idx ON resource_usage_events (organization_id, occurred_at);
    CREATE INDEX resource_usage_events_resource_time_idx ON resource_usage_events (resource_id, occurred_at);

    -- passages the AI retrieves: text with its location in one version of a resource
    CREATE TABLE resource_passages (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      resource_id uuid NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
      version_id uuid NOT NULL REFERENCES resource_versions(id) ON DELETE CASCADE,
      ordinal integer NOT NULL CHECK (ordinal >= 0),
      page_number integer NOT NULL CHECK (page_number >= 1),
      location_kind text NOT NULL CHECK (location_kind IN ('page', 'slide', 'sheet', 'section', 'text')),
      heading_path text,
      content text NOT NULL,
      search tsvector GENERATED ALWAYS AS (to_tsvector('english', coalesce(heading_path, '') || ' ' || content)) STORED,
      embedding_model text,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (version_id, ordinal)
    );
    CREATE INDEX resource_passages_search_idx ON resource_passages USING gin (search);
    CREATE INDEX resource_passages_resource_idx ON resource_passages (organization_id, resource_id);
  `);
  // 512: the default embedder's dimension (Universal Sentence Encoder lite); OpenAI-compatible providers
  // are asked for 512 dimensions too, so one column serves both; embedding_model says which space a row is in
  await declareVectorColumn(sequelize, { table: 'resource_passages', column: 'embedding', dimensions: 512 });
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await undeclareVectorColumn(sequelize, 'resource_passages', 'embedding');
  await sequelize.query(`
    DROP TABLE resource_passages;
    DROP TABLE resource_usage_events;
    DROP TABLE resource_entitlements;
    DROP TABLE resource_category_links;
    DROP TABLE resource_versions;
    DROP TABLE resources;
    DROP TABLE resource_categories;
  `);
}
