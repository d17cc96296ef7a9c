// The CRM sync's tables in SQL: the queue (one row per member, its version moving with each change),
// the organization's lease on the connection row, the contacts HubSpot took, and the run records.
// crm-sync.service.ts decides; this file only reads and writes.
import type { Transaction } from 'sequelize';
import type { Sql } from '../../shared/sql.ts';
import type { MemberForCrm } from './crm-mapping.ts';

const LEASE_SECONDS = 120;

export interface QueuedRow extends MemberForCrm {
  member_id: string;
  queue_email: string;
  action: 'upsert' | 'delete';
  version: number;
  /** false when the member row is gone (deleted). */
  present: boolean;
}

/** A run's hold on the organization's lease: the end time it set, renewed as the run goes. */
export interface Lease {
  until: string;
}

export interface RunCounts {
  sent: number;
  failed: number;
  calls: number;
}

export class CrmSyncRepository {
  constructor(private readonly sql: Sql) {}

  /** Whether the organization (the placeholder `organizationId`) has a connection changes are queued for. */
  static connectedSql(organizationId: string): string {
    return `EXISTS (SELECT 1 FROM crm_connections c
                     WHERE c.organization_id = ${organizationId} AND c.status <> 'disconnected')`;
  }

  /** Queues one member's change when the organization has a connection; false when it has none. */
  async add(
    organizationId: string,
    member: { id: string; email: string },
    action: 'upsert' | 'delete',
    transaction: Transaction,
  ): Promise<boolean> {
    const { rowCount } = await this.sql.query(
      `INSERT INTO crm_sync_queue (organization_id, member_id, email, action)
       SELECT $1::uuid, $2::uuid, $3, $4 WHERE ${CrmSyncRepository.connectedSql('$1')}
       ON CONFLICT (organization_id, member_id) DO UPDATE
         SET email = EXCLUDED.email, action = EXCLUDED.action, version = crm_sync_queue.version + 1,
             queued_at = clock_timestamp()`,
      [organizationId, member.id, member.email, action],
      transaction,
    );
    return rowCount > 0;
  }

  /** Queues every member of the organization (those queued already keep their row). */
  async addAll(organizationId: string, transaction: Transaction): Promise<number> {
    const { rowCount } = await this.sql.query(
      `INSERT INTO crm_sync_queue (organization_id, member_id, email, action)
       SELECT organization_id, id, email, 'upsert' FROM members WHERE organization_id = $1
       ON CONFLICT (organization_id, member_id) DO NOTHING`,
      [organizationId],
      transaction,
    );
    return rowCount;
  }

  async hasQueued(organizationId: string): Promise<boolean> {
    const row = await this.sql.one('SELECT 1 FROM crm_sync_queue WHERE organization_id = $1 LIMIT 1', [organizationId]);
    return row !== undefined;
  }

  /** The oldest queued rows with what HubSpot needs of their member (the queue's e-mail when it is gone). */
  nextBatch(organizationId: string, limit: number): Promise<QueuedRow[]> {
    return this.sql.rows<QueuedRow>(
      `SELECT q.member_id, q.email AS queue_email, q.action, q.version, m.id IS NOT NULL AS present,
              q.member_id AS id, COALESCE(m.email, q.email) AS email, m.first_name, m.last_name, m.phone,
              m.status, m.tier, m.membership_type, m.joined_at::text AS joined_at, m.renewal_date::text AS renewal_date,
              NULLIF(trim(COALESCE(m.custom_fields->>'employer', m.custom_fields->>'company')), '') AS employer
         FROM crm_sync_queue q
         LEFT JOIN members m ON m.id = q.member_id AND m.organization_id = q.organization_id
        WHERE q.organization_id = $1
        ORDER BY q.queued_at, q.member_id
        LIMIT $2`,
      [organizationId, limit],
    );
  }

  /** Takes rows off the queue, each only at the version that was sent: a newer change stays queued. */
  async acknowledge(
    organizationId: string,
    rows: Array<Pick<QueuedRow, 'member_id' | 'version'>>,
    transaction: Transaction,
  ): Promise<void> {
    await this.sql.query(
      `DELETE FROM crm_sync_queue q USING unnest($2::uuid[], $3::int[]) AS s(member_id, version)
        WHERE q.organization_id = $1 AND q.member_id = s.member_id AND q.version = s.version`,
      [organizationId, rows.map((r) => r.member_id), rows.map((r) => r.version)],
      transaction,
    );
  }

  /**
   * Takes the organization's lease; its end time (as text, to the microsecond) is the run's token:
   * a run that outlived its lease finds another's there and neither renews nor releases it.
   */
  async lease(organizationId: string): Promise<Lease | undefined> {
    const row = await this.sql.one<{ until: string }>(
      `UPDATE crm_connections SET sync_lease_until = now() + make_interval(secs => $2)
        WHERE organization_id = $1 AND (sync_lease_until IS NULL OR sync_lease_until < now())
        RETURNING sync_lease_until::text AS until`,
      [organizationId, LEASE_SECONDS],
    );
    return row ? { until: row.until } : undefined;
  }

  /** Extends the lease while it is still this run's; false when another run took it. */
  async renew(organizationId: string, lease: Lease): Promise<boolean> {
    const row = await this.sql.one<{ until: string }>(
      `UPDATE crm_connections SET sync_lease_until = now() + make_interval(secs => $2)
        WHERE organization_id = $1 AND sync_lease_until = $3::timestamptz
        RETURNING sync_lease_until::text AS until`,
      [organizationId, LEASE_SECONDS, lease.until],
    );
    if (!row) return false;
    lease.until = row.until;
    return true;
  }

  async release(organizationId: string, lease: Lease): Promise<void> {
    await this.sql.query(
      `UPDATE crm_connections SET sync_lease_until = NULL
        WHERE organization_id = $1 AND sync_lease_until = $2::timestamptz`,
      [organizationId, lease.until],
    );
  }

  /** Records what HubSpot took (contact ids) and clears those records' earlier errors. */
  async recordSent(
    organizationId: string,
    sent: Array<{ memberId: string; contactId: string }>,
    transaction: Transaction,
  ): Promise<void> {
    await this.sql.query(
      `INSERT INTO crm_contacts (organization_id, member_id, contact_id)
       SELECT $1, * FROM unnest($2::uuid[], $3::text[])
       ON CONFLICT (organization_id, member_id) DO UPDATE SET contact_id = EXCLUDED.contact_id, synced_at = now()`,
      [organizationId, sent.map((s) => s.memberId), sent.map((s) => s.contactId)],
      transaction,
    );
    // a record that went through has no error any more (a retried one whose cause is gone is cleared)
    await this.sql.query(
      `DELETE FROM crm_sync_errors
        WHERE organization_id = $1 AND type = 'contact_sync' AND record_id = ANY($2::text[])`,
      [organizationId, sent.map((s) => s.memberId)],
      transaction,
    );
  }

  async countSettled(organizationId: string, sent: number, failed: number, transaction: Transaction): Promise<void> {
    await this.sql.query(
      `UPDATE crm_connections SET contacts_synced = contacts_synced + $2, contacts_failed = contacts_failed + $3,
              last_sync_at = now(), last_error = NULL, updated_at = now() WHERE organization_id = $1`,
      [organizationId, sent, failed],
      transaction,
    );
  }

  knownContacts(
    organizationId: string,
    memberIds: string[],
  ): Promise<Array<{ member_id: string; contact_id: string }>> {
    return this.sql.rows(
      'SELECT member_id, contact_id FROM crm_contacts WHERE organization_id = $1 AND member_id = ANY($2::uuid[])',
      [organizationId, memberIds],
    );
  }

  async forgetContacts(organizationId: string, memberIds: string[], transaction: Transaction): Promise<void> {
    await this.sql.query(
      'DELETE FROM crm_contacts WHERE organization_id = $1 AND member_id = ANY($2::uuid[])',
      [organizationId, memberIds],
      transaction,
    );
  }

  async lastError(organizationId: string, message: string): Promise<void> {
    await this.sql.query(`UPDATE crm_connections SET last_error = $2, updated_at = now() WHERE organization_id = $1`, [
      organizationId,
      message,
    ]);
  }

  /**
   * Opens a run record. Called by the lease's holder, so a run still 'running' is one whose process
   * died (SIGKILL, crash): it is ended as failed first.
   */
  async startRun(organizationId: string): Promise<string> {
    await this.sql.query(
      `UPDATE crm_sync_runs SET status = 'failed', detail = 'the process running it stopped', finished_at = now()
        WHERE organization_id = $1 AND status = 'running'`,
      [organizationId],
    );
    const run = await this.sql.one<{ id: string }>(
      `INSERT INTO crm_sync_runs (organization_id, status) VALUES ($1, 'running') RETURNING id`,
      [organizationId],
    );
    return run?.id as string;
  }

  async finishRun(runId: string, status: string, counts: RunCounts, detail: string | undefined): Promise<void> {
    await this.sql.query(
      `UPDATE crm_sync_runs SET status = $2, contacts_sent = $3, contacts_failed = $4, calls = $5, detail = $6,
              finished_at = now() WHERE id = $1`,
      [runId, status, counts.sent, counts.failed, counts.calls, detail ?? null],
    );
  }
}
