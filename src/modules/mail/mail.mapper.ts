import type { components } from '../../types/openapi.d.ts';
import type { OutboxMessage } from './outbox-message.model.ts';

export type OutboxMessageDto = components['schemas']['OutboxMessage'];

export const toOutboxMessageDto = (message: OutboxMessage): OutboxMessageDto => ({
  id: message.id,
  template: message.template as OutboxMessageDto['template'],
  to: message.toAddress,
  userId: message.userId,
  subject: message.subject,
  // never the body itself: it may carry a generated password or a password link
  text: message.redactedText,
  status: message.status,
  attempts: message.attempts,
  lastError: message.lastError,
  sentAt: message.sentAt?.toISOString() ?? null,
  createdAt: message.createdAt.toISOString(),
});
