// Conversations and turns of the library chat, and the content-gaps report over them. Every query is
// scoped to the organization and, for the asker's own data, to the asker.
import type { Sequelize } from 'sequelize';
import { Binds, type Sql } from '../../shared/sql.ts';
import { LOW_CONFIDENCE } from './chat.evidence.ts';

export interface Asker {
  organizationId: string;
  type: 'user' | 'api_key';
  id: string;
}

export interface ChatSource {
  resourceId: string;
  resourceName: string;
  pageNumber: number;
  excerpt: string;
}

export interface TurnRecord {
  id: string;
  conversationId: string;
  ordinal: number;
  query: string;
  answer: string;
  mode: 'ai' | 'search';
  keywordOnly: boolean;
  answered: boolean;
  confidence: number;
  sources: ChatSource[];
  suggestedQuestions: string[];
  helpful: boolean | null;
  feedbackComment: string | null;
  createdAt: Date;
}

export interface ConversationRecord {
  id: string;
  title: string;
  createdAt: Date;
  updatedAt: Date;
  turns: TurnRecord[];
}

export type NewTurn = Omit<
  TurnRecord,
  'id' | 'conversationId' | 'ordinal' | 'helpful' | 'feedbackComment' | 'createdAt'
>;

export interface ContentGap {
  question: string;
  asked: number;
  lowConfidence: number;
  unhelpful: number;
  averageConfidence: number;
  lastAskedAt: Date;
  comments: string[];
}

interface TurnRow {
  id: string;
  conversation_id: string;
  ordinal: number;
  query: string;
  answer: string;
  mode: 'ai' | 'search';
  keyword_only: boolean;
  answered: boolean;
  confidence: number;
  sources: ChatSource[];
  suggested_questions: string[];
  helpful: boolean | null;
  feedback_comment: string | null;
  created_at: Date;
}

const TURN_COLUMNS =
  't.id, t.conversation_id, t.ordinal, t.query, t.answer, t.mode, t.keyword_only, t.answered, t.confidence, t.sources, t.suggested_questions, t.helpful, t.feedback_comment, t.created_at';

const toTurn = (row: TurnRow): TurnRecord => ({
  id: row.id,
  conversationId: row.conversation_id,
  ordinal: row.ordinal,
  query: row.query,
  answer: row.answer,
  mode: row.mode,
  keywordOnly: row.keyword_only,
  answered: row.answered,
  confidence: Number(row.confidence),
  sources: row.sources,
  suggestedQuestions: row.suggested_questions,
  helpful: row.helpful,
  feedbackComment: row.feedback_comment,
  createdAt: new Date(row.created_at),
});

/** The normalised form a question is grouped by in the content-gaps report. */
const NORMALISED_QUERY = `btrim(regexp_replace(lower(t.query), '[^a-z0-9]+', ' ', 'g'))`;

export class ChatRepository {
  constructor(private readonly deps: { sql: Sql; sequelize: Sequelize }) {}

  async conversationExists(asker: Asker, id: string): Promise<boolean> {
    const row = await this.deps.sql.one<{ id: string }>(
      `SELECT id FROM chat_conversations WHERE id = $1::uuid AND organization_id = $2 AND asker_type = $3 AND asker_id = $4`,
      [id, asker.organizationId, asker.type, asker.id],
    );
    return Boolean(row);
  }

  /** The last `limit` turns of a conversation, oldest first. */
  async recentTurns(conversationId: string, limit: number): Promise<TurnRecord[]> {
    const rows = await this.deps.sql.rows<TurnRow>(
      `SELECT * FROM (SELECT ${TURN_COLUMNS} FROM chat_turns t WHERE t.conversation_id = $1 ORDER BY t.ordinal DESC LIMIT $2) x ORDER BY ordinal`,
      [conversationId, limit],
    );
    return rows.map(toTurn);
  }

  /** Appends a turn, creating the conversation when `conversationId` is null. */
  async addTurn(asker: Asker, conversationId: string | null, turn: NewTurn): Promise<TurnRecord> {
    return this.deps.sequelize.transaction(async (transaction) => {
      let id = conversationId;
      if (id) {
        // the row lock orders concurrent turns of one conversation
        await this.deps.sql.query(`SELECT 1 FROM chat_conversations WHERE id = $1 FOR UPDATE`, [id], transaction);
        await this.deps.sql.query(`UPDATE chat_conversations SET updated_at = now() WHERE id = $1`, [id], transaction);
      } else {
        const created = await this.deps.sql.one<{ id: string }>(
          `INSERT INTO chat_conversations (organization_id, asker_type, asker_id, title) VALUES ($1, $2, $3, $4) RETURNING id`,
          [asker.organizationId, asker.type, asker.id, turn.query.slice(0, 200)],
          transaction,
        );
        id = created!.id;
      }
      const row = await this.deps.sql.one<TurnRow>(
        `INSERT INTO chat_turns (conversation_id, organization_id, ordinal, query, answer, mode, keyword_only, answered, confidence, sources, suggested_questions)
         VALUES ($1, $2, (SELECT coalesce(max(ordinal), 0) + 1 FROM chat_turns WHERE conversation_id = $1), $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb)
         RETURNING id, conversation_id, ordinal, query, answer, mode, keyword_only, answered, confidence, sources, suggested_questions, helpful, feedback_comment, created_at`,
        [
          id,
          asker.organizationId,
          turn.query,
          turn.answer,
          turn.mode,
          turn.keywordOnly,
          turn.answered,
          turn.confidence,
          JSON.stringify(turn.sources),
          JSON.stringify(turn.suggestedQuestions),
        ],
        transaction,
      );
      return toTurn(row!);
    });
  }

  /** The asker's conversations, most recently active first, each with its turns. */
  async history(
    asker: Asker,
    page: { offset: number; limit: number },
    conversationId?: string,
  ): Promise<{ conversations: ConversationRecord[]; total: number }> {
    const binds = new Binds();
    const where = [
      `c.organization_id = ${binds.add(asker.organizationId)}`,
      `c.asker_type = ${binds.add(asker.type)}`,
      `c.asker_id = ${binds.add(asker.id)}`,
    ];
    if (conversationId) where.push(`c.id = ${binds.add(conversationId)}::uuid`);
    const total = await this.deps.sql.one<{ n: string }>(
      `SELECT count(*) AS n FROM chat_conversations c WHERE ${where.join(' AND ')}`,
      binds.values,
    );
    const conversations = await this.deps.sql.rows<{ id: string; title: string; created_at: Date; updated_at: Date }>(
      `SELECT c.id, c.title, c.created_at, c.updated_at FROM chat_conversations c WHERE ${where.join(' AND ')}
        ORDER BY c.updated_at DESC, c.id LIMIT ${binds.add(page.limit)} OFFSET ${binds.add(page.offset)}`,
      binds.values,
    );
    const turns = conversations.length
      ? await this.deps.sql.rows<TurnRow>(
          `SELECT ${TURN_COLUMNS} FROM chat_turns t WHERE t.conversation_id = ANY($1::uuid[]) ORDER BY t.conversation_id, t.ordinal`,
          [conversations.map((c) => c.id)],
        )
      : [];
    return {
      total: Number(total?.n ?? 0),
      conversations: conversations.map((c) => ({
        id: c.id,
        title: c.title,
        createdAt: new Date(c.created_at),
        updatedAt: new Date(c.updated_at),
        turns: turns.filter((t) => t.conversation_id === c.id).map(toTurn),
      })),
    };
  }

  /** Records the asker's verdict on one of their answers; null when no such turn is theirs. */
  async rate(
    asker: Asker,
    target: { turnId?: string; conversationId?: string },
    helpful: boolean,
    comment: string | null,
  ): Promise<TurnRecord | null> {
    const binds = new Binds();
    const where = [
      `c.organization_id = ${binds.add(asker.organizationId)}`,
      `c.asker_type = ${binds.add(asker.type)}`,
      `c.asker_id = ${binds.add(asker.id)}`,
    ];
    if (target.turnId) where.push(`t.id = ${binds.add(target.turnId)}::uuid`);
    if (target.conversationId) where.push(`t.conversation_id = ${binds.add(target.conversationId)}::uuid`);
    const row = await this.deps.sql.one<TurnRow>(
      `UPDATE chat_turns t SET helpful = ${binds.add(helpful)}, feedback_comment = ${binds.add(comment)}, feedback_at = now()
        WHERE t.id = (SELECT t.id FROM chat_turns t JOIN chat_conversations c ON c.id = t.conversation_id WHERE ${where.join(' AND ')} ORDER BY t.ordinal DESC LIMIT 1)
        RETURNING ${TURN_COLUMNS}`,
      binds.values,
    );
    return row ? toTurn(row) : null;
  }

  /** Questions answered with low confidence or rated unhelpful, grouped by their normalised text. */
  async contentGaps(
    organizationId: string,
    page: { offset: number; limit: number },
    since?: Date,
  ): Promise<{ gaps: ContentGap[]; total: number }> {
    const binds = new Binds();
    const where = [
      `t.organization_id = ${binds.add(organizationId)}`,
      `(t.confidence < ${LOW_CONFIDENCE} OR t.helpful = false)`,
    ];
    if (since) where.push(`t.created_at >= ${binds.add(since)}`);
    const grouped = `SELECT ${NORMALISED_QUERY} AS question_key, count(*) AS asked,
                            count(*) FILTER (WHERE t.confidence < ${LOW_CONFIDENCE}) AS low_confidence,
                            count(*) FILTER (WHERE t.helpful = false) AS unhelpful,
                            avg(t.confidence)::float8 AS average_confidence, max(t.created_at) AS last_asked_at,
                            (array_agg(t.query ORDER BY t.created_at DESC))[1] AS question,
                            (array_agg(t.feedback_comment ORDER BY t.created_at DESC) FILTER (WHERE t.feedback_comment IS NOT NULL))[1:3] AS comments
                       FROM chat_turns t WHERE ${where.join(' AND ')} GROUP BY 1`;
    const total = await this.deps.sql.one<{ n: string }>(`SELECT count(*) AS n FROM (${grouped}) g`, binds.values);
    const rows = await this.deps.sql.rows<{
      question: string;
      asked: string;
      low_confidence: string;
      unhelpful: string;
      average_confidence: number;
      last_asked_at: Date;
      comments: string[] | null;
    }>(
      `${grouped} ORDER BY asked DESC, last_asked_at DESC, question_key LIMIT ${binds.add(page.limit)} OFFSET ${binds.add(page.offset)}`,
      binds.values,
    );
    return {
      total: Number(total?.n ?? 0),
      gaps: rows.map((row) => ({
        question: row.question,
        asked: Number(row.asked),
        lowConfidence: Number(row.low_confidence),
        unhelpful: Number(row.unhelpful),
        averageConfidence: Math.round(Number(row.average_confidence) * 1000) / 1000,
        lastAskedAt: new Date(row.last_asked_at),
        comments: row.comments ?? [],
      })),
    };
  }
}
