import type { MigrationContext } from '../src/shared/migrator.ts';

// The daily rollup of resource usage (src/modules/resource-reports). Two grains:
// - resource_usage_daily: one row per (resource, UTC day) with views, downloads and the readers of
//   that day (the spec's per-day unique users); stats series and daily trends read it;
// - resource_usage_daily_readers: one row per (resource, UTC day, reader): unique users over a range
//   are a COUNT(DISTINCT reader_key) over it, exact (summing per-day uniques would count a reader once
//   per day), and the members report reads its views, downloads and last activity per user.
// resource_usage_rollup_state holds the last day both are complete through: reports read them up to
// that day and the raw events after it, so a report is right whether or not the job has run.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE resource_usage_daily (
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      resource_id uuid NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
      day date NOT NULL,
      views integer NOT NULL CHECK (views >= 0),
      downloads integer NOT NULL CHECK (downloads >= 0),
      unique_users integer NOT NULL CHECK (unique_users >= 0),
      PRIMARY KEY (organization_id, day, resource_id)
    );
    CREATE INDEX resource_usage_daily_resource_idx ON resource_usage_daily (resource_id, day);

    -- reader_key: 'u:<user id>' for a signed-in user, 'v:<visitor key>' for anonymous visitors and API keys
    CREATE TABLE resource_usage_daily_readers (
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      resource_id uuid NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
      day date NOT NULL,
      reader_key text NOT NULL CHECK (length(reader_key) <= 80),
      user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      views integer NOT NULL CHECK (views >= 0),
      downloads integer NOT NULL CHECK (downloads >= 0),
      last_at timestamptz NOT NULL,
      PRIMARY KEY (organization_id, day, resource_id, reader_key)
    );
    CREATE INDEX resource_usage_daily_readers_resource_idx ON resource_usage_daily_readers (resource_id, day);

    -- the refresh reads events by time across organizations; they arrive in time order, so a BRIN
    -- index is a few pages and costs the hot insert path next to nothing
    CREATE INDEX resource_usage_events_time_brin ON resource_usage_events USING brin (occurred_at);

    CREATE TABLE resource_usage_rollup_state (
      id smallint PRIMARY KEY CHECK (id = 1),
      complete_through date NOT NULL,
      refreshed_at timestamptz NOT NULL DEFAULT now()
    );
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP TABLE resource_usage_rollup_state;
    DROP INDEX resource_usage_events_time_brin;
    DROP TABLE resource_usage_daily_readers;
    DROP TABLE resource_usage_daily;
  `);
}
