import type { MigrationContext } from '../src/shared/migrator.ts';

// The time step of the last one-time code accepted per user: a code whose step is not newer is
// refused, so an accepted code cannot be used again (RFC 6238 §5.2).
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE totp_last_steps (
      user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
      step bigint NOT NULL
    );
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query('DROP TABLE totp_last_steps;');
}
