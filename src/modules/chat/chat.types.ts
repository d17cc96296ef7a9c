// What the chat takes and gives: the question, the answer with its sources, where a streamed answer
// goes, and the chat model it may ask (Claude or an OpenAI-compatible server).
import type {
  AnthropicFailureReason,
  GroundedAnswer,
  GroundedChunk,
  GroundedRequest,
} from '../../integrations/anthropic/anthropic.client.ts';
import type { AnswerFeatures } from './chat.evidence.ts';
import type { ChatSource } from './chat.repository.ts';

export interface ChatInput {
  query: string;
  conversationId?: string;
  resourceScope?: string[];
}

export interface ChatAnswer {
  answer: string;
  sources: ChatSource[];
  suggestedQuestions: string[];
  confidence: number;
  conversationId: string;
  turnId: string;
  mode: 'ai' | 'search';
  keywordOnly: boolean;
  /** Why an answer configured for Claude came in search mode. */
  fallbackReason: AnthropicFailureReason | null;
  /** What the confidence rests on (for the evaluation; not part of the API response). */
  diagnostics?: Diagnostics;
}

/** An answer before it is recorded as a turn of a conversation. */
export type UnrecordedAnswer = Omit<ChatAnswer, 'conversationId' | 'turnId'>;

export interface Diagnostics {
  features: AnswerFeatures | null;
  /** The page the lead sentence comes from, whether or not the chat answered with it. */
  lead: { resourceId: string; pageNumber: number; text: string } | null;
  /** The pages a search-mode answer cites (or would cite, when it abstained). */
  pages: Array<{ resourceId: string; pageNumber: number }>;
}

/** Where a streamed answer goes as it is written. */
export interface AnswerSink {
  token(text: string): void;
  /** Tokens already sent are void (Claude failed mid-answer); the search-mode answer follows. */
  reset(reason: AnthropicFailureReason): void;
}

/**
 * A model that answers from the passages it is sent and cites them: Claude (AnthropicClient) or an
 * OpenAI-compatible server (OpenAiChatClient). Both throw AnthropicUnavailable to mean "use search mode".
 */
export interface ChatModel {
  answer(request: GroundedRequest): Promise<GroundedAnswer>;
  stream(request: GroundedRequest): AsyncGenerator<GroundedChunk>;
}
