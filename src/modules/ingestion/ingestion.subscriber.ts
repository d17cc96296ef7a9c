import type { Subscriber } from '../../shared/domain-events/domain-event.ts';
import type { IngestionService } from './ingestion.service.ts';

/**
 * The library's events, handled in the worker (job subscriber): publishing or a new version starts an
 * ingestion (its run and job commit with the receipt); unpublishing or deleting removes the passages
 * (the service reads the resource's state, so events delivered out of order end the same way).
 * Retrieval joins `resources` with the access policy, so an unpublished resource already drops out of
 * it at its own commit; this removes what is left.
 */
export function ingestionSubscriber(ingestion: IngestionService): Subscriber {
  return {
    name: 'ingestion.index',
    events: ['resource.published', 'resource.version_added', 'resource.unpublished', 'resource.deleted'],
    async handle(event, { transaction }) {
      const resourceId = typeof event.data.id === 'string' ? event.data.id : undefined;
      if (!resourceId) return;
      await ingestion.reconcile(resourceId, transaction);
    },
  };
}
