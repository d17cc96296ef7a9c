import type { MigrationContext } from '../src/shared/migrator.ts';

// What administrators may read of an e-mail: its text with generated passwords and password links
// replaced. The full bodies stay only until the SMTP server accepts the message.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE mail_outbox ADD COLUMN redacted_text text;
    -- rows written before this column existed: their bodies may hold secrets, so nothing of them is shown
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query('ALTER TABLE mail_outbox DROP COLUMN redacted_text');
}
