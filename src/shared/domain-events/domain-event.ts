// Domain events: what happened, recorded in the transaction that made it happen, then handed to the
// subscribers of other modules. Vocabulary in CONTEXT.md beside this file.
import type { Transaction } from 'sequelize';
import type { Logger } from '../logger.ts';

export interface EventKind {
  description: string;
  /** Public kinds are the contract's `webhooks:` section: clients may subscribe to them. */
  public: boolean;
}

/** A module's own event kinds, by name (`<module>.<what happened>`). */
export type EventCatalog = Readonly<Record<string, EventKind>>;

export const defineEvents = <const C extends EventCatalog>(catalog: C): C => catalog;

/** The names of a catalog's public kinds. */
export type PublicEventType<C extends EventCatalog> = {
  [K in keyof C]: C[K] extends { public: true } ? K : never;
}[keyof C] &
  string;

export function publicEventsOf<C extends EventCatalog>(catalog: C): Record<PublicEventType<C>, string> {
  const kinds = Object.entries(catalog).filter(([, kind]) => kind.public);
  return Object.fromEntries(kinds.map(([type, kind]) => [type, kind.description])) as Record<
    PublicEventType<C>,
    string
  >;
}

/** One occurrence, as stored in `domain_events`. */
export interface DomainEvent {
  id: string;
  type: string;
  organizationId: string | null;
  actor: { type: string; id: string } | null;
  data: Record<string, unknown>;
  occurredAt: Date;
}

export interface SubscriberContext {
  /** Inline subscribers: the causing transaction. Job subscribers: a transaction that also records the receipt. */
  transaction: Transaction;
  logger: Logger;
  /** Job subscribers: 0 on the first run, retries count up; inline subscribers: always 0. */
  attempt: number;
}

/**
 * A module's reaction to other modules' events.
 * - `inline`: runs inside the causing transaction. For writing the subscriber's own outbox rows only
 *   (webhooks: one delivery per subscription); it must be quick and touch no network.
 * - `job` (default): one `domain-event.deliver` job per event, enqueued in the causing transaction.
 *   It runs in a worker inside a transaction that records a receipt keyed by (event id, subscriber):
 *   database effects happen exactly once, outside effects (a CRM call) at least once, so they must be
 *   keyed by the event id. Long work should enqueue its own job or pipeline from here.
 */
export interface Subscriber {
  /** Stable: it keys the receipts and names the jobs (`crm.sync-member`, `search.reindex`). */
  name: string;
  /** Kinds it handles; '*' for every kind, 'public' for every public kind. */
  events: readonly string[] | '*' | 'public';
  mode?: 'inline' | 'job';
  handle(event: DomainEvent, context: SubscriberContext): Promise<void>;
  /**
   * Inline subscribers that write only in some cases (webhooks: an active subscription to the kind;
   * the CRM: a connection): a SQL condition, true when handle() would write for `event`, for a caller
   * that writes the event's row in a statement of its own to evaluate there (`param` adds a parameter
   * and gives its placeholder). Where it is false, fanOut does not run handle(): a round trip saved.
   */
  writesWhen?(event: DomainEvent, param: (value: unknown) => string): string;
}
