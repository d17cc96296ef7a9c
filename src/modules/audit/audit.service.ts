import type { Transaction } from 'sequelize';
import type { Actor } from '../../shared/access/actor.ts';
import type { Sql } from '../../shared/sql.ts';
import { AuditEntry } from './audit-entry.model.ts';

export interface AuditRecord {
  action: string;
  targetType: string;
  targetId?: string | null;
  organizationId?: string | null;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

/** A JSONB parameter as the model writes it (JSON text; absent is SQL NULL). */
const json = (value: Record<string, unknown> | null | undefined) => (value == null ? null : JSON.stringify(value));

/** The columns of an audit entry, in the order of auditValues (occurred_at first). */
export const AUDIT_COLUMNS = `occurred_at, organization_id, actor_type, actor_id, impersonator_id, action, target_type,
  target_id, before, after, request_id`;

/**
 * The values of the entry `record` writes, in AUDIT_COLUMNS' order: for a caller that writes the entry
 * inside a statement of its own (`INSERT INTO audit_log (AUDIT_COLUMNS) SELECT ...`), so that a change
 * and its entry are one round trip (SCIM provisioning, docs/performance.md#scim).
 */
export function auditValues(actor: Actor, record: AuditRecord): unknown[] {
  return [
    new Date(),
    record.organizationId ?? actor.organizationId,
    actor.type,
    actor.id,
    actor.impersonation?.impersonatorId ?? null,
    record.action,
    record.targetType,
    record.targetId ?? null,
    json(record.before),
    json(record.after),
    actor.requestId ?? null,
  ];
}

/** Append-only trail (the table refuses UPDATE and DELETE). Written in the caller's transaction. */
export class AuditService {
  /**
   * With `sql`, entries are written as one plain INSERT (the same row the model writes): every write in
   * the platform records one or more, and building a model instance per entry was a measurable share
   * of a write's CPU (SCIM provisioning, docs/performance.md#scim).
   */
  constructor(private readonly sql?: Sql) {}

  async record(actor: Actor, record: AuditRecord, transaction?: Transaction): Promise<void> {
    if (this.sql) {
      await this.sql.query(
        `INSERT INTO audit_log (${AUDIT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        auditValues(actor, record),
        transaction,
      );
      return;
    }
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
