import type { MigrationContext } from '../src/shared/migrator.ts';

// The library chat's memory: conversations belong to one asker (a user or an API key of one
// organization), turns keep what was asked, what was answered, how (ai or search mode), with what
// confidence and which passages were cited, so follow-ups, history, feedback and the content-gaps
// report read one table. Feedback lives on the turn it rates (one asker, one verdict, changeable).
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE chat_conversations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      asker_type text NOT NULL CHECK (asker_type IN ('user', 'api_key')),
      asker_id text NOT NULL CHECK (length(asker_id) <= 100),
      title text NOT NULL CHECK (length(title) <= 200),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX chat_conversations_asker_idx ON chat_conversations (organization_id, asker_type, asker_id, updated_at DESC, id);

    CREATE TABLE chat_turns (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      conversation_id uuid NOT NULL REFERENCES chat_conversations(id) ON DELETE CASCADE,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      ordinal integer NOT NULL CHECK (ordinal >= 1),
      query text NOT NULL CHECK (length(query) <= 2000),
      answer text NOT NULL,
      mode text NOT NULL CHECK (mode IN ('ai', 'search')),
      keyword_only boolean NOT NULL DEFAULT false,
      answered boolean NOT NULL,
      confidence real NOT NULL CHECK (confidence BETWEEN 0 AND 1),
      sources jsonb NOT NULL DEFAULT '[]',
      suggested_questions jsonb NOT NULL DEFAULT '[]',
      helpful boolean,
      feedback_comment text CHECK (length(feedback_comment) <= 2000),
      feedback_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (conversation_id, ordinal)
    );
    -- the content-gaps report reads an organization's weak answers
    CREATE INDEX chat_turns_gaps_idx ON chat_turns (organization_id, created_at) WHERE confidence < 0.5 OR helpful = false;
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query('DROP TABLE chat_turns; DROP TABLE chat_conversations;');
}
