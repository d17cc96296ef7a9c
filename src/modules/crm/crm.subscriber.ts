import type { Subscriber } from '../../shared/domain-events/domain-event.ts';
import type { CrmSyncService } from './crm-sync.service.ts';

/**
 * Member changes reach the CRM queue inside the transaction that made them (inline: one INSERT of
 * this module's own row and its job, only when the organization has a connection); the `crm.sync`
 * job sends them.
 */
export function crmMemberSubscriber(sync: CrmSyncService): Subscriber {
  return {
    name: 'crm.queue-member',
    events: ['member.created', 'member.updated', 'member.deleted'],
    mode: 'inline',
    async handle(event, { transaction }) {
      const { id, email } = event.data;
      if (!event.organizationId || typeof id !== 'string' || typeof email !== 'string') return;
      const action = event.type === 'member.deleted' ? 'delete' : 'upsert';
      await sync.enqueue(event.organizationId, { id, email }, action, transaction);
    },
  };
}
