import { defineModule } from '../../shared/module-manifest.ts';
import { AuditEntry } from './audit-entry.model.ts';
import { AuditService } from './audit.service.ts';

export const auditModule = defineModule({
  name: 'audit',
  models: { AuditEntry },
  services: ({ platform }) => ({ audit: new AuditService(platform.sql) }),
  ownedUserData: [
    {
      type: 'audit_entries',
      description: 'Audit trail entries of actions by the user (kept)',
      table: 'audit_log',
      column: 'actor_id',
      cast: '::text',
      transferable: false,
    },
  ],
});
