import type { MigrationContext } from '../src/shared/migrator.ts';

// The CRM integration (HubSpot), one-way: Guildhall -> HubSpot.
// - crm_connections: one per organization; tokens sealed with APP_SECRET; the sync figures the status
//   diagnostic reports come from here (no call to HubSpot per request).
// - crm_oauth_states: the single-use `state` of a connection attempt, bound to the admin and organization.
// - crm_sync_queue: members waiting to be sent, one row per member (a second change before the send
//   coalesces into the row); a row leaves only once HubSpot took it or it became a sync error.
// - crm_contacts / crm_companies: what HubSpot calls our members and their employers.
// - crm_sync_errors: failed records with HubSpot's category, kept until retried or resolved.
// - crm_api_calls: every call to a portal, for the rolling 10-second burst limit shared by instances.
// - crm_sync_runs: each run of the sync job, for the Admin Portal.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE crm_connections (
      organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
      status text NOT NULL CHECK (status IN ('connected', 'needs_reauthorization', 'disconnected')),
      hub_id text,
      portal_name text,
      access_token_sealed text,
      refresh_token_sealed text,
      token_expires_at timestamptz,
      scopes text[] NOT NULL DEFAULT '{}',
      connected_by uuid REFERENCES users(id) ON DELETE SET NULL,
      connected_at timestamptz,
      delete_policy text NOT NULL DEFAULT 'mark' CHECK (delete_policy IN ('mark', 'archive')),
      property_mapping jsonb NOT NULL DEFAULT '[]',
      mapping_status jsonb,
      mapping_checked_at timestamptz,
      last_sync_at timestamptz,
      last_error text,
      contacts_synced integer NOT NULL DEFAULT 0,
      contacts_failed integer NOT NULL DEFAULT 0,
      companies_synced integer NOT NULL DEFAULT 0,
      engagements_synced integer NOT NULL DEFAULT 0,
      daily_used integer NOT NULL DEFAULT 0,
      daily_used_on date,
      -- one sync run per organization at a time, across instances: a lease renewed per batch
      sync_lease_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX crm_connections_hub_idx ON crm_connections (hub_id) WHERE status <> 'disconnected';

    CREATE TABLE crm_oauth_states (
      state_hash text PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      expires_at timestamptz NOT NULL
    );

    CREATE TABLE crm_sync_queue (
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      member_id uuid NOT NULL,
      email text NOT NULL,
      action text NOT NULL CHECK (action IN ('upsert', 'delete')),
      -- bumped by every coalesced change: a send acknowledges only the version it read
      version integer NOT NULL DEFAULT 1,
      queued_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (organization_id, member_id)
    );
    CREATE INDEX crm_sync_queue_order_idx ON crm_sync_queue (organization_id, queued_at, member_id);

    CREATE TABLE crm_contacts (
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      member_id uuid NOT NULL,
      contact_id text NOT NULL,
      company_id text,
      synced_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (organization_id, member_id)
    );

    CREATE TABLE crm_companies (
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name_key text NOT NULL,
      company_id text NOT NULL,
      PRIMARY KEY (organization_id, name_key)
    );

    CREATE TABLE crm_sync_errors (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      type text NOT NULL,
      crm_error text NOT NULL,
      property text,
      record_id text,
      http_status integer,
      message text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX crm_sync_errors_org_idx ON crm_sync_errors (organization_id, created_at DESC, id);

    CREATE TABLE crm_api_calls (
      hub_id text NOT NULL,
      called_at timestamptz NOT NULL
    );
    CREATE INDEX crm_api_calls_hub_idx ON crm_api_calls (hub_id, called_at);

    CREATE TABLE crm_sync_runs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      status text NOT NULL CHECK (status IN ('running', 'completed', 'partial', 'stopped', 'failed')),
      contacts_sent integer NOT NULL DEFAULT 0,
      contacts_failed integer NOT NULL DEFAULT 0,
      calls integer NOT NULL DEFAULT 0,
      detail text,
      started_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz
    );
    CREATE INDEX crm_sync_runs_org_idx ON crm_sync_runs (organization_id, started_at DESC);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP TABLE crm_sync_runs; DROP TABLE crm_api_calls; DROP TABLE crm_sync_errors; DROP TABLE crm_companies;
    DROP TABLE crm_contacts; DROP TABLE crm_sync_queue; DROP TABLE crm_oauth_states; DROP TABLE crm_connections;
  `);
}
