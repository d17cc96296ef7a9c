import type { Transaction } from 'sequelize';
import type { Actor } from '../../shared/access/actor.ts';
import { AuditEntry } from './audit-entry.model.ts';

export interface AuditRecord {
  action: string;
  targetType: string;
  targetId?: string | null;
  organizationId?: string | null;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

/** Append-only trail (the table refuses UPDATE and DELETE). Written in the caller's transaction. */
export class AuditService {
  async record(actor: Actor, record: AuditRecord, transaction?: Transaction): Promise<void> {
    await AuditEntry.create(
      {
        organizationId: record.organizationId ?? actor.organizationId,
        actorType: actor.type,
        actorId: actor.id,
        impersonatorId: actor.impersonation?.impersonatorId ?? null,
        action: record.action,
        targetType: record.targetType,
        targetId: record.targetId ?? null,
        before: record.before ?? null,
        after: record.after ?? null,
        requestId: actor.requestId ?? null,
      },
      { transaction },
    );
  }
}
