// A member's employer as a HubSpot company: created once per organization and name (case and spacing
// aside), its id remembered, associated with the member's contact. Companies are extra to the contact
// sync: HubSpot refusing one is a `company_sync` error and the contacts still go.
import type { Sql } from '../../shared/sql.ts';
import { type HubSpotCrm, toHubSpotError } from '../../integrations/hubspot/hubspot.client.ts';
import { BATCH_SIZE, type Call, chunks } from './crm-batches.ts';
import type { CrmErrorLog } from './crm-error.log.ts';

/** What a queued member brings to its company. */
export interface EmployedRow {
  member_id: string;
  employer: string | null;
  /** false when the member row is gone (deleted). */
  present: boolean;
}

const companyKey = (name: string) => name.trim().replace(/\s+/g, ' ').toLowerCase();

export class CrmCompanies {
  constructor(private readonly deps: { sql: Sql; errorLog: CrmErrorLog }) {}

  /**
   * Companies are extra: HubSpot refusing one is a `company_sync` error and the contacts still go. A
   * rate limit, a refused token or an outage ends the run as for contacts.
   */
  async step<T>(organizationId: string, step: () => Promise<T>): Promise<T | undefined> {
    try {
      return await step();
    } catch (error) {
      const failure = toHubSpotError(error);
      if (failure.endsRun) throw failure;
      await this.deps.errorLog.record(organizationId, [
        {
          type: 'company_sync',
          crmError: failure.category,
          property: failure.property,
          recordId: null,
          httpStatus: failure.status,
          message: failure.message,
        },
      ]);
      return undefined;
    }
  }

  /**
   * A member's employer becomes a HubSpot company (created once per organization and name, case and
   * spacing aside); its id is remembered, so a name is never created twice.
   */
  async ensure(organizationId: string, rows: EmployedRow[], crm: HubSpotCrm, call: Call): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    for (const row of rows) if (row.present && row.employer) names.set(companyKey(row.employer), row.employer);
    if (names.size === 0) return new Map();
    const known = await this.deps.sql.rows<{ name_key: string; company_id: string }>(
      'SELECT name_key, company_id FROM crm_companies WHERE organization_id = $1 AND name_key = ANY($2::text[])',
      [organizationId, [...names.keys()]],
    );
    const ids = new Map(known.map((k) => [k.name_key, k.company_id]));
    const missing = [...names].filter(([key]) => !ids.has(key));
    for (const batch of chunks(missing, BATCH_SIZE)) {
      const created = await call(() => crm.createCompanies(batch.map(([, name]) => name)));
      for (const company of created) ids.set(companyKey(company.name), company.id);
      await this.deps.sql.query(
        `INSERT INTO crm_companies (organization_id, name_key, company_id)
         SELECT $1, * FROM unnest($2::text[], $3::text[]) ON CONFLICT DO NOTHING`,
        [organizationId, created.map((c) => companyKey(c.name)), created.map((c) => c.id)],
      );
      await this.deps.sql.query(
        'UPDATE crm_connections SET companies_synced = companies_synced + $2 WHERE organization_id = $1',
        [organizationId, created.length],
      );
    }
    return ids;
  }

  /** Associates synced contacts with their employer's company, where not done already. */
  async associate(
    organizationId: string,
    rows: EmployedRow[],
    companies: Map<string, string>,
    crm: HubSpotCrm,
    call: Call,
  ): Promise<void> {
    if (companies.size === 0) return;
    const wanted = rows.flatMap((row) => {
      const companyId = row.employer ? companies.get(companyKey(row.employer)) : undefined;
      return row.present && companyId ? [{ memberId: row.member_id, companyId }] : [];
    });
    const pending = await this.deps.sql.rows<{ member_id: string; contact_id: string; company_id: string }>(
      `SELECT c.member_id, c.contact_id, w.company_id
         FROM crm_contacts c JOIN unnest($2::uuid[], $3::text[]) AS w(member_id, company_id) ON w.member_id = c.member_id
        WHERE c.organization_id = $1 AND c.company_id IS DISTINCT FROM w.company_id`,
      [organizationId, wanted.map((w) => w.memberId), wanted.map((w) => w.companyId)],
    );
    if (pending.length === 0) return;
    await call(() =>
      crm.associateContactsWithCompanies(pending.map((p) => ({ contactId: p.contact_id, companyId: p.company_id }))),
    );
    await this.deps.sql.query(
      `UPDATE crm_contacts c SET company_id = p.company_id
         FROM unnest($2::uuid[], $3::text[]) AS p(member_id, company_id)
        WHERE c.organization_id = $1 AND c.member_id = p.member_id`,
      [organizationId, pending.map((p) => p.member_id), pending.map((p) => p.company_id)],
    );
  }
}
