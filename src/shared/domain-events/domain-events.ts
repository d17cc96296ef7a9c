// The domain event outbox and its fan-out. `publish` runs inside the caller's transaction: the event
// row, the inline subscribers' rows and one job per job subscriber commit with the change or not at
// all. Workers then run each job subscriber once per event (a receipt keyed by event id and name).
import { randomUUID } from 'node:crypto';
import { Op, type Sequelize, type Transaction } from 'sequelize';
import type { JobContext } from '../../jobs/job.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Actor } from '../access/actor.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { DomainEventRecord } from './domain-event.model.ts';
import type { DomainEvent, EventCatalog, EventKind, Subscriber } from './domain-event.ts';

export const DELIVER_EVENT_JOB = 'domain-event.deliver';

export interface DeliverEventJob {
  eventId: string;
  subscriber: string;
}

export interface DomainEventsDeps {
  sequelize: Sequelize;
  clock: Clock;
  queue: JobQueue;
  logger: Logger;
}

/** The columns of an event's row, in the order of eventValues. */
export const DOMAIN_EVENT_COLUMNS = 'id, organization_id, type, actor_type, actor_id, data, occurred_at';

/** The values of the row publish() writes for `event`, in DOMAIN_EVENT_COLUMNS' order. */
export function eventValues(event: DomainEvent): unknown[] {
  return [
    event.id,
    event.organizationId,
    event.type,
    event.actor?.type ?? null,
    event.actor?.id ?? null,
    JSON.stringify(event.data),
    event.occurredAt,
  ];
}

export class DomainEvents {
  private readonly kinds = new Map<string, EventKind>();
  private readonly subscribers = new Map<string, Subscriber>();

  constructor(private readonly deps: DomainEventsDeps) {}

  /** Adds a module's event catalog; a kind has one owner. */
  declare(catalog: EventCatalog): this {
    for (const [type, kind] of Object.entries(catalog)) {
      if (this.kinds.has(type)) throw new Error(`Event kind ${type} is declared twice`);
      this.kinds.set(type, kind);
    }
    return this;
  }

  subscribe(subscriber: Subscriber): this {
    if (this.subscribers.has(subscriber.name)) throw new Error(`Subscriber ${subscriber.name} is registered twice`);
    const unknown = Array.isArray(subscriber.events) ? subscriber.events.filter((type) => !this.kinds.has(type)) : [];
    if (unknown.length)
      throw new Error(`Subscriber ${subscriber.name} names unknown event kinds: ${unknown.join(', ')}`);
    this.subscribers.set(subscriber.name, subscriber);
    return this;
  }

  catalog(): ReadonlyMap<string, EventKind> {
    return this.kinds;
  }

  /** Records the event in the caller's transaction and fans it out (see the file's header). */
  async publish(actor: Actor | null, type: string, data: object, transaction: Transaction): Promise<void> {
    await this.record(actor, type, data, transaction);
  }

  /** publish(), returning the event as recorded. */
  async record(actor: Actor | null, type: string, data: object, transaction: Transaction): Promise<DomainEvent> {
    const event = this.prepare(actor, type, data);
    await DomainEventRecord.create(
      {
        id: event.id,
        type,
        organizationId: event.organizationId,
        actorType: event.actor?.type ?? null,
        actorId: event.actor?.id ?? null,
        data: event.data,
        occurredAt: event.occurredAt,
      },
      { transaction },
    );
    await this.fanOut(event, transaction);
    return event;
  }

  /**
   * The event publish() would record, not yet written: for a caller that writes its row in a statement
   * of its own (DOMAIN_EVENT_COLUMNS, eventValues) and then calls fanOut() in the same transaction, so a
   * change and its event are one round trip (SCIM provisioning, docs/performance.md#scim).
   */
  prepare(actor: Actor | null, type: string, data: object): DomainEvent {
    if (!this.kinds.has(type)) throw new Error(`${type} is not in any module's event catalog`);
    return {
      id: randomUUID(),
      type,
      organizationId: actor?.organizationId ?? null,
      actor: actor ? { type: actor.type, id: actor.id } : null,
      data: data as Record<string, unknown>,
      occurredAt: this.deps.clock.now(),
    };
  }

  /**
   * For a caller writing a prepared event's row in its own statement: a SQL expression (text[]) naming
   * the inline subscribers with a `writesWhen` condition that holds, evaluated in that statement. Passed
   * to fanOut as `withWork`, it lets fanOut skip the others (docs/performance.md#scim).
   */
  subscribersWithWork(event: DomainEvent, param: (value: unknown) => string): string {
    const conditional = this.subscribersOf(event.type, this.kinds.get(event.type)!).filter(
      (subscriber) => subscriber.mode === 'inline' && subscriber.writesWhen,
    );
    const names = conditional.map(
      (subscriber) => `CASE WHEN ${subscriber.writesWhen!(event, param)} THEN ${param(subscriber.name)}::text END`,
    );
    return names.length ? `array_remove(ARRAY[${names.join(', ')}], NULL)` : `'{}'::text[]`;
  }

  /**
   * The subscribers' part of publish(), for an event from prepare() whose row is written. `withWork`:
   * what subscribersWithWork found in the statement that wrote it (an inline subscriber with a
   * condition not named there has nothing to write).
   */
  async fanOut(event: DomainEvent, transaction: Transaction, withWork?: readonly string[]): Promise<void> {
    const kind = this.kinds.get(event.type)!;
    for (const subscriber of this.subscribersOf(event.type, kind)) {
      if (subscriber.mode === 'inline') {
        if (withWork && subscriber.writesWhen && !withWork.includes(subscriber.name)) continue;
        await subscriber.handle(event, {
          transaction,
          logger: this.deps.logger.child({ subscriber: subscriber.name }),
          attempt: 0,
        });
      } else {
        await this.deps.queue.enqueue(
          DELIVER_EVENT_JOB,
          { eventId: event.id, subscriber: subscriber.name },
          { transaction },
        );
      }
    }
  }

  /** The `domain-event.deliver` job: one job subscriber, one event, at most once per receipt. */
  async deliver(
    { eventId, subscriber: name }: DeliverEventJob,
    { attempt, logger }: Pick<JobContext, 'attempt' | 'logger'>,
  ): Promise<void> {
    const subscriber = this.subscribers.get(name);
    // a subscriber removed since the event: nothing can handle it, retries would not help
    if (!subscriber) return logger.warn({ eventId, subscriber: name }, 'no such subscriber; event left unhandled');
    await this.deps.sequelize.transaction(async (transaction) => {
      const record = await DomainEventRecord.findByPk(eventId, { transaction });
      if (!record) return logger.warn({ eventId, subscriber: name }, 'event purged before it was handled');
      // a concurrent duplicate waits here for the first one's commit, then finds the receipt
      const [inserted] = await this.deps.sequelize.query(
        `INSERT INTO domain_event_receipts (event_id, subscriber, handled_at) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING RETURNING event_id`,
        { bind: [eventId, name, this.deps.clock.now()], transaction },
      );
      if ((inserted as unknown[]).length === 0) return;
      await subscriber.handle(record.toEvent(), { transaction, logger: logger.child({ subscriber: name }), attempt });
    });
  }

  /** Retention: events (and their receipts) that occurred before the cutoff. */
  async purgeBefore(cutoff: Date): Promise<number> {
    return DomainEventRecord.destroy({ where: { occurredAt: { [Op.lt]: cutoff } } });
  }

  private subscribersOf(type: string, kind: EventKind): Subscriber[] {
    return [...this.subscribers.values()].filter(({ events }) =>
      events === '*' ? true : events === 'public' ? kind.public : events.includes(type),
    );
  }
}
