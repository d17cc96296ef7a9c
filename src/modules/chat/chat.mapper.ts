import type { components } from '../../types/openapi.d.ts';
import type { ContentGap, ConversationRecord, TurnRecord } from './chat.repository.ts';
import type { ChatAnswer } from './chat.service.ts';

export type ChatResponseDto = components['schemas']['ChatResponse'];
export type ChatTurnDto = components['schemas']['ChatTurn'];
export type ChatConversationDto = components['schemas']['ChatConversation'];
export type ContentGapDto = components['schemas']['ContentGap'];

export function toChatResponseDto(answer: ChatAnswer): ChatResponseDto {
  return {
    answer: answer.answer,
    sources: answer.sources,
    suggestedQuestions: answer.suggestedQuestions,
    confidence: answer.confidence,
    conversationId: answer.conversationId,
    turnId: answer.turnId,
    mode: answer.mode,
    keywordOnly: answer.keywordOnly,
    fallbackReason: answer.fallbackReason,
  };
}

export function toChatTurnDto(turn: TurnRecord): ChatTurnDto {
  return {
    id: turn.id,
    conversationId: turn.conversationId,
    query: turn.query,
    answer: turn.answer,
    mode: turn.mode,
    keywordOnly: turn.keywordOnly,
    confidence: turn.confidence,
    sources: turn.sources,
    suggestedQuestions: turn.suggestedQuestions,
    helpful: turn.helpful,
    feedbackComment: turn.feedbackComment,
    createdAt: turn.createdAt.toISOString(),
  };
}

export function toChatConversationDto(conversation: ConversationRecord): ChatConversationDto {
  return {
    id: conversation.id,
    title: conversation.title,
    createdAt: conversation.createdAt.toISOString(),
    updatedAt: conversation.updatedAt.toISOString(),
    turns: conversation.turns.map(toChatTurnDto),
  };
}

export function toContentGapDto(gap: ContentGap): ContentGapDto {
  return { ...gap, lastAskedAt: gap.lastAskedAt.toISOString() };
}
