import type { MigrationContext } from '../src/shared/migrator.ts';

// The deliveries table is the delivery queue (webhook.dispatcher.ts): a claim leases a due delivery
// until `claimed_until`, so a second dispatcher skips it while it is in flight and a crashed one's
// claims come due again. Each subscription (one endpoint URL) carries its circuit breaker: failures
// in a row, and until when nothing is sent to it.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE webhook_deliveries ADD COLUMN claimed_until timestamptz;
    CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (organization_id, next_attempt_at) WHERE status = 'pending';
    ALTER TABLE webhook_subscriptions ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0;
    ALTER TABLE webhook_subscriptions ADD COLUMN circuit_open_until timestamptz;
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE webhook_subscriptions DROP COLUMN circuit_open_until;
    ALTER TABLE webhook_subscriptions DROP COLUMN consecutive_failures;
    DROP INDEX webhook_deliveries_due_idx;
    ALTER TABLE webhook_deliveries DROP COLUMN claimed_until;
  `);
}
