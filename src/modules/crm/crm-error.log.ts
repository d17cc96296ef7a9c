// Sync errors: one row per record (or mapping, or token) HubSpot refused, with HubSpot's own error
// code. A newer failure of the same record replaces the older one; a record that later goes through
// clears its error (crm-sync.service.ts).
import type { Sequelize, Transaction } from 'sequelize';
import type { Sql } from '../../shared/sql.ts';

export interface FailedRecord {
  /** contact_sync, property_mapping, auth */
  type: string;
  crmError: string;
  property: string | null;
  /** The member's id for a contact; null for a mapping or token error. */
  recordId: string | null;
  httpStatus: number | null;
  message: string;
}

export class CrmErrorLog {
  constructor(private readonly deps: { sequelize: Sequelize; sql: Sql }) {}

  async record(organizationId: string, records: FailedRecord[], transaction?: Transaction): Promise<void> {
    if (records.length === 0) return;
    const write = async (t: Transaction) => {
      await this.deps.sql.query(
        `DELETE FROM crm_sync_errors e USING unnest($2::text[], $3::text[], $4::text[]) AS r(type, record_id, property)
          WHERE e.organization_id = $1 AND e.type = r.type
            AND e.record_id IS NOT DISTINCT FROM r.record_id
            AND (r.record_id IS NOT NULL OR e.property IS NOT DISTINCT FROM r.property)`,
        [organizationId, records.map((r) => r.type), records.map((r) => r.recordId), records.map((r) => r.property)],
        t,
      );
      await this.deps.sql.query(
        `INSERT INTO crm_sync_errors (organization_id, type, crm_error, property, record_id, http_status, message)
         SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[])`,
        [
          organizationId,
          records.map((r) => r.type),
          records.map((r) => r.crmError),
          records.map((r) => r.property),
          records.map((r) => r.recordId),
          records.map((r) => r.httpStatus),
          records.map((r) => r.message),
        ],
        t,
      );
    };
    if (transaction) await write(transaction);
    else await this.deps.sequelize.transaction(write);
  }
}
