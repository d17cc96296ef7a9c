// Thumbnails follow the resource: publishing it, a new file version or a change (a new featured image)
// enqueue the thumbnail job in the causing transaction. Inline: it only writes the job row.
import type { JobQueue } from '../../../jobs/queue.ts';
import type { DomainEvent, Subscriber, SubscriberContext } from '../../../shared/domain-events/domain-event.ts';

export class ThumbnailSubscriber implements Subscriber {
  readonly name = 'library.thumbnails';
  readonly events = ['resource.published', 'resource.version_added', 'resource.updated'] as const;
  readonly mode = 'inline' as const;

  constructor(private readonly deps: { queue: JobQueue }) {}

  async handle(event: DomainEvent, { transaction }: SubscriberContext): Promise<void> {
    const resourceId = typeof event.data.id === 'string' ? event.data.id : undefined;
    if (!resourceId) return;
    // no singleton key: a change while a thumbnail is being made must make another (the job is idempotent)
    await this.deps.queue.enqueue('library.thumbnail', { resourceId }, { transaction });
  }
}
