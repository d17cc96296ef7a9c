import type { Sql } from '../../shared/sql.ts';
import type { Subscriber } from '../../shared/domain-events/domain-event.ts';

/**
 * A new version of a resource makes what was generated from an older one `stale`, in the transaction
 * that added the version (inline: one indexed UPDATE of this module's own rows). The output stays
 * downloadable, labelled stale, until someone regenerates it.
 */
export function staleOnNewVersion(sql: Sql): Subscriber {
  return {
    name: 'generation.mark-stale',
    events: ['resource.version_added'],
    mode: 'inline',
    async handle(event, { transaction }) {
      const resourceId = typeof event.data.id === 'string' ? event.data.id : undefined;
      if (!resourceId) return;
      await sql.query(
        `UPDATE generated_content g SET status = 'stale', updated_at = now()
           FROM resources r
           LEFT JOIN resource_versions v ON v.resource_id = r.id AND v.version = r.current_version
          WHERE r.id = $1::uuid AND g.resource_id = r.id AND g.status = 'ready'
            AND g.source_version_id IS DISTINCT FROM v.id`,
        [resourceId],
        transaction,
      );
    },
  };
}
