// The event kinds subscribers can name: the public kinds of every module's domain event catalog
// (src/domain-events.ts), each with a payload schema in openapi.yaml's `webhooks` section.
import { domainEventCatalog } from '../../domain-events.ts';
import { publicEventsOf, type PublicEventType } from '../../shared/domain-events/domain-event.ts';

export const WEBHOOK_EVENT_TYPES: Readonly<Record<WebhookEventType, string>> = publicEventsOf(domainEventCatalog);

export type WebhookEventType = PublicEventType<typeof domainEventCatalog>;

export const isWebhookEventType = (value: string): value is WebhookEventType => Object.hasOwn(WEBHOOK_EVENT_TYPES, value);
