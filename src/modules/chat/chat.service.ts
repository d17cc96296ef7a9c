// The library chat: answers a question from the passages the asker may open, with Claude (cited) when
// it is configured and answering, otherwise by extracting the sentences that answer (search mode).
//
// Access is decided before any model runs: retrieval filters by the reader's open predicate inside
// its SQL, so the passages handed to Claude are already only the asker's; nothing a document says can
// widen that, and a citation can only point at a passage that was sent. The confidence comes from
// retrieval evidence in both modes; when it is too low the chat says the library has no answer, cites
// nothing and does not ask the model.
//
// Its parts: chat.judgement.ts (whether to answer, with which sentences, how sure), chat.search-answer.ts
// (search mode, "no answer", suggestions), chat.model-answer.ts (the chat model, cited), chat.types.ts.
import type { Sequelize } from 'sequelize';
import type { AnthropicFailureReason } from '../../integrations/anthropic/anthropic.client.ts';
import { AnthropicUnavailable } from '../../integrations/anthropic/anthropic.client.ts';
import type { Embedder } from '../../integrations/embeddings/embedder.ts';
import type { Actor } from '../../shared/access/actor.ts';
import { scopeFor } from '../../shared/access/scope.ts';
import { errors } from '../../shared/errors.ts';
import type { Logger } from '../../shared/logger.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import type { Sql } from '../../shared/sql.ts';
import { resolveReader } from '../library/index.ts';
import { ANSWERABLE } from './chat.evidence.ts';
import { judge } from './chat.judgement.ts';
import { answerWithModel } from './chat.model-answer.ts';
import {
  ChatRepository,
  type Asker,
  type ContentGap,
  type ConversationRecord,
  type TurnRecord,
} from './chat.repository.ts';
import { answerBySearch, noAnswer } from './chat.search-answer.ts';
import type { AnswerSink, ChatAnswer, ChatInput, ChatModel, UnrecordedAnswer } from './chat.types.ts';
import { withholdUnopenable } from './chat.withheld.ts';
import { PassageRetrieval } from './passage-retrieval.repository.ts';

export type { AnswerSink, ChatAnswer, ChatInput, ChatModel, Diagnostics } from './chat.types.ts';
export { NO_ANSWER } from './chat.search-answer.ts';

/** Earlier turns passed to Claude for follow-ups. */
const HISTORY_TURNS = 6;
const PASSAGES_FOR_MODEL = 8;
/**
 * The chat model is asked from this confidence, or when a passage's retrieval evidence reaches
 * ANSWERABLE (the model reads the passages itself; a question wrapped in other requests scores low
 * as a whole yet has its passage); below both, nothing it was sent would come near.
 */
const MODEL_FLOOR = 0.3;

function askerOf(actor: Actor, organizationId: string): Asker {
  if (actor.type !== 'user' && actor.type !== 'api_key')
    throw errors.forbidden('Only users and API keys have chat conversations');
  return { organizationId, type: actor.type, id: actor.id };
}

export class ChatService {
  readonly retrieval: PassageRetrieval;
  private readonly repository: ChatRepository;

  constructor(
    private readonly deps: {
      sql: Sql;
      sequelize: Sequelize;
      embedder: Embedder;
      logger: Logger;
      anthropic?: ChatModel;
    },
  ) {
    this.retrieval = new PassageRetrieval(deps);
    this.repository = new ChatRepository(deps);
  }

  async ask(actor: Actor, input: ChatInput, sink?: AnswerSink): Promise<ChatAnswer> {
    const reader = await resolveReader(this.deps.sql, actor);
    const asker = askerOf(actor, reader.organizationId);
    if (input.conversationId && !(await this.repository.conversationExists(asker, input.conversationId)))
      throw errors.notFound('conversation', input.conversationId);
    const recent = input.conversationId ? await this.repository.recentTurns(input.conversationId, HISTORY_TURNS) : [];
    const history = await withholdUnopenable(this.deps.sql, reader, recent);

    const queryVector = await this.retrieval.embedQuery(input.query);
    const retrieved = await this.retrieval.retrieve(
      reader,
      { query: input.query, categoryIds: input.resourceScope, limit: PASSAGES_FOR_MODEL },
      queryVector,
    );
    const evidence = await judge(
      { retrieval: this.retrieval, embedder: this.deps.embedder },
      reader,
      input.query,
      retrieved,
      queryVector,
    );

    let fallbackReason: AnthropicFailureReason | null = null;
    let result: UnrecordedAnswer | null = null;
    // the model reads the passages itself and must say when they do not answer: it is consulted on
    // weaker evidence than search mode answers on, and never when nothing comes near
    const consult = evidence.confidence >= MODEL_FLOOR || evidence.passageSupport >= ANSWERABLE;
    if (this.deps.anthropic && consult && evidence.relevant.length) {
      try {
        result = await answerWithModel(this.deps.anthropic, input.query, history, evidence, sink);
        result.keywordOnly = retrieved.keywordOnly;
      } catch (error) {
        if (!(error instanceof AnthropicUnavailable)) throw error;
        fallbackReason = error.reason;
        this.deps.logger.warn(
          { err: error, reason: error.reason },
          'The chat model is unavailable: the chat answers in search mode',
        );
      }
    }
    if (!result && evidence.answerable) {
      result = {
        ...answerBySearch(input.query, evidence, sink),
        keywordOnly: retrieved.keywordOnly,
        fallbackReason,
      };
    } else if (!result) {
      const answer = noAnswer(evidence);
      sink?.token(answer);
      result = {
        answer,
        sources: [],
        suggestedQuestions: [],
        confidence: evidence.confidence,
        mode: 'search',
        keywordOnly: retrieved.keywordOnly,
        fallbackReason,
      };
    }
    result.diagnostics = {
      features: evidence.features,
      lead: evidence.lead
        ? {
            resourceId: evidence.lead.passage.resourceId,
            pageNumber: evidence.lead.passage.pageNumber,
            text: evidence.lead.text,
          }
        : null,
      pages: evidence.sentences.map(({ passage }) => ({
        resourceId: passage.resourceId,
        pageNumber: passage.pageNumber,
      })),
    };

    const turn = await this.repository.addTurn(asker, input.conversationId ?? null, {
      query: input.query,
      answer: result.answer,
      mode: result.mode,
      keywordOnly: result.keywordOnly,
      answered: result.sources.length > 0,
      confidence: result.confidence,
      sources: result.sources,
      suggestedQuestions: result.suggestedQuestions,
    });
    return { ...result, conversationId: turn.conversationId, turnId: turn.id };
  }

  async history(actor: Actor, page: PageRequest, conversationId?: string): Promise<Page<ConversationRecord>> {
    const scope = scopeFor(actor, 'resource', 'read');
    const asker = askerOf(actor, scope.organizationId!);
    const { conversations, total } = await this.repository.history(
      asker,
      { offset: offsetOf(page), limit: page.itemsPerPage },
      conversationId,
    );
    // one look at the cited resources for the whole page
    const reader = await resolveReader(this.deps.sql, actor);
    const turns = await withholdUnopenable(
      this.deps.sql,
      reader,
      conversations.flatMap((c) => c.turns),
    );
    const shown = new Map(turns.map((turn) => [turn.id, turn]));
    return pageOf(
      conversations.map((c) => ({ ...c, turns: c.turns.map((turn) => shown.get(turn.id)!) })),
      total,
      page,
    );
  }

  async feedback(
    actor: Actor,
    input: { turnId?: string; conversationId?: string; helpful: boolean; comment?: string },
  ): Promise<TurnRecord> {
    const scope = scopeFor(actor, 'resource', 'read');
    const asker = askerOf(actor, scope.organizationId!);
    if (!input.turnId && !input.conversationId)
      throw errors.validation([{ field: 'turnId', message: 'turnId or conversationId is required' }]);
    const turn = await this.repository.rate(asker, input, input.helpful, input.comment?.trim() || null);
    if (!turn) throw errors.notFound('chat answer', input.turnId ?? input.conversationId);
    const [shown] = await withholdUnopenable(this.deps.sql, await resolveReader(this.deps.sql, actor), [turn]);
    return shown!;
  }

  /** Client admins: what members asked that the library answered poorly or not at all. */
  async contentGaps(actor: Actor, page: PageRequest, since?: Date): Promise<Page<ContentGap>> {
    const scope = scopeFor(actor, 'resource', 'write');
    const { gaps, total } = await this.repository.contentGaps(
      scope.organizationId!,
      { offset: offsetOf(page), limit: page.itemsPerPage },
      since,
    );
    return pageOf(gaps, total, page);
  }
}
