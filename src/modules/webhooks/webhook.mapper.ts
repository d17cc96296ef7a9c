import type { components } from '../../types/openapi.d.ts';
import type { WebhookAttempt, WebhookDelivery } from './webhook-delivery.model.ts';
import type { WebhookSubscription } from './webhook-subscription.model.ts';

export type WebhookSubscriptionDto = components['schemas']['WebhookSubscription'];
export type WebhookDeliveryDto = components['schemas']['WebhookDelivery'];
export type WebhookEventTypeDto = components['schemas']['WebhookEventType'];

export function toWebhookDto(subscription: WebhookSubscription): WebhookSubscriptionDto {
  return {
    id: subscription.id,
    url: subscription.url,
    description: subscription.description,
    events: subscription.eventTypes,
    status: subscription.status,
    disabledReason: subscription.disabledReason,
    createdAt: subscription.createdAt.toISOString(),
    updatedAt: subscription.updatedAt.toISOString(),
  };
}

export function toAttemptDto(attempt: WebhookAttempt): WebhookDeliveryDto['attempts'][number] {
  return {
    attemptedAt: attempt.attemptedAt.toISOString(),
    statusCode: attempt.statusCode,
    durationMs: attempt.durationMs,
    error: attempt.error,
  };
}

export function toDeliveryDto(delivery: WebhookDelivery, attempts: WebhookAttempt[]): WebhookDeliveryDto {
  return {
    id: delivery.id,
    webhookId: delivery.subscriptionId,
    eventId: delivery.eventId,
    eventType: delivery.event!.type as WebhookEventTypeDto,
    status: delivery.status,
    attemptCount: delivery.attemptCount,
    nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
    lastAttemptAt: delivery.lastAttemptAt?.toISOString() ?? null,
    lastStatusCode: delivery.lastStatusCode,
    lastError: delivery.lastError,
    createdAt: delivery.createdAt.toISOString(),
    attempts: attempts.map(toAttemptDto),
  };
}
