// The event kinds subscribers can name: the public kinds of every module's domain event catalog, each
// with a payload schema in openapi.yaml's `webhooks` section. The type is the contract's enum (a test
// keeps it equal to the catalogs); the list is read from the outbox the modules declared their kinds to,
// so this module imports no module list.
import type { DomainEvents } from '../../shared/domain-events/domain-events.ts';
import type { components } from '../../types/openapi.d.ts';

export type WebhookEventType = components['schemas']['WebhookEventType'];

/** Public kind -> description. */
export type WebhookEventTypes = Readonly<Record<string, string>>;

export function webhookEventTypes(events: Pick<DomainEvents, 'catalog'>): WebhookEventTypes {
  const kinds = [...events.catalog()].filter(([, kind]) => kind.public);
  return Object.fromEntries(kinds.map(([type, kind]) => [type, kind.description]));
}
