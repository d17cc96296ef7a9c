// The event kinds subscribers can name. Later modules add theirs here (resource.published,
// user.created, ...) along with a payload schema in openapi.yaml's `webhooks` section.
export const WEBHOOK_EVENT_TYPES = {
  'member.created': 'A member was created.',
  'member.updated': 'A member was changed.',
  'member.deleted': 'A member was deleted; data is the member as it was.',
  'event.created': 'An event was created.',
  'event.updated': 'An event was changed (including publication and cancellation).',
  'event.deleted': 'An event was deleted; data is the event as it was.',
  'course.created': 'A course was created.',
  'course.updated': 'A course was changed (including publication).',
  'course.deleted': 'A course was deleted; data is the course as it was.',
} as const satisfies Record<string, string>;

export type WebhookEventType = keyof typeof WEBHOOK_EVENT_TYPES;

export const isWebhookEventType = (value: string): value is WebhookEventType => Object.hasOwn(WEBHOOK_EVENT_TYPES, value);
