import type { MigrationContext } from '../src/shared/migrator.ts';

// The domain event outbox: every event, written in the transaction of the change that caused it,
// and the receipts of job subscribers (one per event and subscriber: the idempotency key).
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE domain_events (
      id uuid PRIMARY KEY,
      organization_id uuid REFERENCES organizations(id) ON DELETE CASCADE,
      type text NOT NULL,
      actor_type text,
      actor_id text,
      data jsonb NOT NULL,
      occurred_at timestamptz NOT NULL
    );
    CREATE INDEX domain_events_occurred_idx ON domain_events (occurred_at);
    CREATE INDEX domain_events_organization_idx ON domain_events (organization_id, occurred_at);

    CREATE TABLE domain_event_receipts (
      event_id uuid NOT NULL REFERENCES domain_events(id) ON DELETE CASCADE,
      subscriber text NOT NULL,
      handled_at timestamptz NOT NULL,
      PRIMARY KEY (event_id, subscriber)
    );
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query('DROP TABLE domain_event_receipts; DROP TABLE domain_events;');
}
