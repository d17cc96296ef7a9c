import type { MigrationContext } from '../src/shared/migrator.ts';

// Every secret a rotation retires keeps signing for its own grace period (24 hours). One "previous"
// column held only the last: a second rotation within the day ended the grace of the secret
// receivers were still using. The retired secrets become a list of { sealed, expiresAt }.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE webhook_subscriptions ADD COLUMN retired_secrets jsonb NOT NULL DEFAULT '[]'::jsonb;
    UPDATE webhook_subscriptions
       SET retired_secrets = jsonb_build_array(jsonb_build_object(
             'sealed', previous_secret_sealed,
             'expiresAt', to_char(previous_secret_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
     WHERE previous_secret_sealed IS NOT NULL AND previous_secret_expires_at IS NOT NULL;
    ALTER TABLE webhook_subscriptions DROP COLUMN previous_secret_sealed, DROP COLUMN previous_secret_expires_at;
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE webhook_subscriptions ADD COLUMN previous_secret_sealed text, ADD COLUMN previous_secret_expires_at timestamptz;
    UPDATE webhook_subscriptions
       SET previous_secret_sealed = retired_secrets -> 0 ->> 'sealed',
           previous_secret_expires_at = (retired_secrets -> 0 ->> 'expiresAt')::timestamptz
     WHERE jsonb_array_length(retired_secrets) > 0;
    ALTER TABLE webhook_subscriptions DROP COLUMN retired_secrets;
  `);
}
