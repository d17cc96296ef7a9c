import type { MigrationContext } from '../src/shared/migrator.ts';

// pgvector is created here, once, by the migration, not by every start. Where the server does not offer
// it (or this role may not create it) the migration still applies: vector columns are not added by
// migrations but declared in vector_columns (src/shared/vector-schema.ts), and the vector-schema step
// after migrations adds them whenever the extension is there, now or after a later install.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE vector_columns (
      table_name text NOT NULL,
      column_name text NOT NULL,
      dimensions integer NOT NULL CHECK (dimensions BETWEEN 1 AND 16000),
      distance text NOT NULL DEFAULT 'cosine' CHECK (distance IN ('cosine', 'l2', 'ip')),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (table_name, column_name)
    )`);
  const [rows] = await sequelize.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
  if (!rows.length) return;
  try {
    await sequelize.query('CREATE EXTENSION IF NOT EXISTS vector');
  } catch (error) {
    // 42501 insufficient_privilege: the operator creates it; the vector-schema step reports it pending.
    if ((error as { parent?: { code?: string } }).parent?.code !== '42501') throw error;
  }
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  // The extension stays: dropping it would drop every vector column with it.
  await sequelize.query('DROP TABLE vector_columns');
}
