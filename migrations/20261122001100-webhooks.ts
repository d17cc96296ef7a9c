import type { MigrationContext } from '../src/shared/migrator.ts';

// Outbound webhooks: subscriptions, the outbox of events and per-subscription deliveries, and every
// delivery attempt. Events and deliveries are written in the transaction of the change that causes
// them, so a committed change always has its deliveries, and a rolled-back one never does.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE webhook_subscriptions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      url text NOT NULL CHECK (length(url) <= 2048),
      description text,
      event_types text[] NOT NULL CHECK (cardinality(event_types) > 0),
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'disabled')),
      disabled_reason text,
      secret_sealed text NOT NULL,
      -- after a rotation the old secret keeps signing (as a second signature) for a grace period
      previous_secret_sealed text,
      previous_secret_expires_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_subscriptions_organization_idx ON webhook_subscriptions (organization_id, created_at DESC, id);
    CREATE INDEX webhook_subscriptions_active_idx ON webhook_subscriptions (organization_id) WHERE status = 'active';

    -- The body is stored as sent, so every attempt signs and sends the same bytes.
    CREATE TABLE webhook_events (
      id text PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      type text NOT NULL,
      body text NOT NULL,
      occurred_at timestamptz NOT NULL
    );
    CREATE INDEX webhook_events_organization_idx ON webhook_events (organization_id, occurred_at);

    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL,
      subscription_id uuid NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
      event_id text NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
      attempt_count integer NOT NULL DEFAULT 0,
      -- position in the retry schedule; a redelivery starts the schedule again
      retry_step integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      last_attempt_at timestamptz,
      last_status_code integer,
      last_error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_deliveries_subscription_idx ON webhook_deliveries (subscription_id, created_at DESC, id);
    CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);
    CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (subscription_id) WHERE status = 'pending';
    CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (updated_at) WHERE status <> 'pending';

    CREATE TABLE webhook_attempts (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
      attempted_at timestamptz NOT NULL,
      status_code integer,
      duration_ms integer NOT NULL,
      error text,
      response_excerpt text
    );
    CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, id);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP TABLE webhook_attempts;
    DROP TABLE webhook_deliveries;
    DROP TABLE webhook_events;
    DROP TABLE webhook_subscriptions;
  `);
}
