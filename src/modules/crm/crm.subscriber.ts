import type { DomainEvent, Subscriber } from '../../shared/domain-events/domain-event.ts';
import { CrmSyncRepository } from './crm-sync.repository.ts';
import type { CrmSyncService } from './crm-sync.service.ts';

const memberOf = ({ data: { id, email } }: DomainEvent) =>
  typeof id === 'string' && typeof email === 'string' ? { id, email } : undefined;

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
    writesWhen(event, param) {
      return event.organizationId && memberOf(event)
        ? CrmSyncRepository.connectedSql(param(event.organizationId))
        : 'false';
    },
    async handle(event, { transaction }) {
      const member = memberOf(event);
      if (!event.organizationId || !member) return;
      const action = event.type === 'member.deleted' ? 'delete' : 'upsert';
      await sync.enqueue(event.organizationId, member, action, transaction);
    },
  };
}
