import type { MigrationContext } from '../src/shared/migrator.ts';

// Members, events and courses. Every list filter and sort has an index that leads with
// organization_id (every query is tenant-scoped); sort indexes end with id (the tie-breaker), so a
// filtered, sorted page is an index range scan, and counts are index-only scans.
// Prefix text filters (lastName=smi) use lower(col) text_pattern_ops, which LIKE 'smi%' can use
// under any collation, on PGlite and on the server alike (pg_trgm is not assumed).
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE members (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      first_name text NOT NULL CHECK (length(first_name) BETWEEN 1 AND 100),
      last_name text NOT NULL CHECK (length(last_name) BETWEEN 1 AND 100),
      email text NOT NULL CHECK (length(email) BETWEEN 3 AND 320),
      phone text,
      tier text NOT NULL DEFAULT 'member' CHECK (tier IN ('member', 'premium')),
      membership_type text,
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'pending', 'lapsed', 'cancelled')),
      joined_at date,
      renewal_date date,
      user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      custom_fields jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX members_email_unique ON members (organization_id, lower(email));
    CREATE UNIQUE INDEX members_user_unique ON members (organization_id, user_id) WHERE user_id IS NOT NULL;
    CREATE INDEX members_status_last_name_idx ON members (organization_id, status, last_name, id);
    -- counts by status: B-tree deduplication keeps this a few hundred kB for 100,000 members, so
    -- the total of a status filter is an index-only scan of a small index, not of the wide one above
    CREATE INDEX members_status_idx ON members (organization_id, status);
    CREATE INDEX members_last_name_idx ON members (organization_id, last_name, first_name, id);
    CREATE INDEX members_last_name_prefix_idx ON members (organization_id, lower(last_name) text_pattern_ops);
    CREATE INDEX members_first_name_idx ON members (organization_id, first_name, id);
    CREATE INDEX members_first_name_prefix_idx ON members (organization_id, lower(first_name) text_pattern_ops);
    CREATE INDEX members_tier_idx ON members (organization_id, tier);
    CREATE INDEX members_membership_type_idx ON members (organization_id, membership_type);
    CREATE INDEX members_joined_at_idx ON members (organization_id, joined_at, id);
    CREATE INDEX members_renewal_date_idx ON members (organization_id, renewal_date, id);
    CREATE INDEX members_created_at_idx ON members (organization_id, created_at, id);
    CREATE INDEX members_updated_at_idx ON members (organization_id, updated_at, id);

    CREATE TABLE events (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
      description text,
      starts_at timestamptz NOT NULL,
      ends_at timestamptz NOT NULL,
      timezone text NOT NULL DEFAULT 'UTC',
      location text,
      online_url text,
      capacity integer CHECK (capacity >= 0),
      status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'cancelled')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK (ends_at >= starts_at)
    );
    CREATE INDEX events_status_starts_at_idx ON events (organization_id, status, starts_at, id);
    CREATE INDEX events_starts_at_idx ON events (organization_id, starts_at, id);
    CREATE INDEX events_ends_at_idx ON events (organization_id, ends_at, id);
    CREATE INDEX events_title_idx ON events (organization_id, title, id);
    CREATE INDEX events_title_prefix_idx ON events (organization_id, lower(title) text_pattern_ops);
    CREATE INDEX events_capacity_idx ON events (organization_id, capacity, id);
    CREATE INDEX events_created_at_idx ON events (organization_id, created_at, id);
    CREATE INDEX events_updated_at_idx ON events (organization_id, updated_at, id);

    CREATE TABLE courses (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
      description text,
      status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'archived')),
      level text NOT NULL DEFAULT 'introductory' CHECK (level IN ('introductory', 'intermediate', 'advanced')),
      duration_minutes integer CHECK (duration_minutes > 0),
      credits numeric(6, 2) NOT NULL DEFAULT 0 CHECK (credits >= 0),
      price numeric(12, 2) NOT NULL DEFAULT 0 CHECK (price >= 0),
      currency text NOT NULL DEFAULT 'USD' CHECK (currency ~ '^[A-Z]{3}$'),
      published_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX courses_status_title_idx ON courses (organization_id, status, title, id);
    CREATE INDEX courses_title_idx ON courses (organization_id, title, id);
    CREATE INDEX courses_title_prefix_idx ON courses (organization_id, lower(title) text_pattern_ops);
    CREATE INDEX courses_level_idx ON courses (organization_id, level);
    CREATE INDEX courses_duration_idx ON courses (organization_id, duration_minutes, id);
    CREATE INDEX courses_credits_idx ON courses (organization_id, credits, id);
    CREATE INDEX courses_price_idx ON courses (organization_id, price, id);
    CREATE INDEX courses_published_at_idx ON courses (organization_id, published_at, id);
    CREATE INDEX courses_created_at_idx ON courses (organization_id, created_at, id);
    CREATE INDEX courses_updated_at_idx ON courses (organization_id, updated_at, id);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP TABLE courses;
    DROP TABLE events;
    DROP TABLE members;
  `);
}
