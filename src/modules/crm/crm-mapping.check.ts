// Checks an organization's property mapping against HubSpot's properties API: before each run (the
// run leaves out properties HubSpot does not have and reports each as a `property_mapping` error,
// instead of failing every record), and when a platform admin asks for the mapping.
import type { Sequelize } from 'sequelize';
import type { Sql } from '../../shared/sql.ts';
import type { HubSpotCrm } from '../../integrations/hubspot/hubspot.client.ts';
import type { Call } from './crm-batches.ts';
import type { CrmErrorLog } from './crm-error.log.ts';
import { type MappingEntry, mappingOf, type ServiceField } from './crm-mapping.ts';

export interface MappingStatus {
  service_field: ServiceField;
  crm_property: string;
  status: 'valid' | 'invalid';
  error?: string;
}

export class CrmMappingCheck {
  constructor(private readonly deps: { sequelize: Sequelize; sql: Sql; errorLog: CrmErrorLog }) {}

  async stored(organizationId: string): Promise<readonly MappingEntry[]> {
    return (await this.read(organizationId)).mapping;
  }

  /** The stored mapping and the database's time of the read; no row: not connected (no start either). */
  private async read(organizationId: string): Promise<{ mapping: readonly MappingEntry[]; started: Date | null }> {
    const row = await this.deps.sql.one<{ property_mapping: MappingEntry[]; started: Date }>(
      'SELECT property_mapping, clock_timestamp() AS started FROM crm_connections WHERE organization_id = $1',
      [organizationId],
    );
    return { mapping: mappingOf(row?.property_mapping ?? []), started: row?.started ?? null };
  }

  /** Checks against HubSpot and stores the verdict (what the diagnostics show without calling HubSpot). */
  async check(organizationId: string, crm: HubSpotCrm, call: Call): Promise<MappingStatus[]> {
    return this.checkAndStore(organizationId, crm, call, false);
  }

  /** The mapping a run uses and the properties it leaves out, each reported once as an error. */
  async forRun(
    organizationId: string,
    crm: HubSpotCrm,
    call: Call,
  ): Promise<{ mapping: readonly MappingEntry[]; skip: Set<string> }> {
    const verdict = await this.checkAndStore(organizationId, crm, call, true);
    return {
      mapping: verdict.map(({ service_field, crm_property }) => ({ service_field, crm_property })),
      skip: new Set(verdict.filter((entry) => entry.status === 'invalid').map((e) => e.crm_property)),
    };
  }

  /**
   * Reads HubSpot's properties, then stores the verdict and reconciles the `property_mapping` errors
   * in one transaction, unless a check that started later has stored its verdict already: a run that
   * read HubSpot just before "create missing properties" must not bring back the errors it cleared.
   */
  private async checkAndStore(
    organizationId: string,
    crm: HubSpotCrm,
    call: Call,
    reportInvalid: boolean,
  ): Promise<MappingStatus[]> {
    const { mapping, started } = await this.read(organizationId);
    const existing = new Map((await call(() => crm.contactProperties())).map((p) => [p.name, p.type]));
    const problems = new Map(
      mapping.flatMap((entry) => {
        const problem = problemOf(entry, existing.get(entry.crm_property));
        return problem ? [[entry, problem] as const] : [];
      }),
    );
    const verdict = mapping.map((entry): MappingStatus => {
      const problem = problems.get(entry);
      return problem
        ? { ...entry, status: 'invalid', error: `${problem.code}: ${problem.detail}` }
        : { ...entry, status: 'valid' };
    });
    await this.deps.sequelize.transaction(async (transaction) => {
      const stored = await this.deps.sql.query(
        `UPDATE crm_connections SET mapping_status = $2::jsonb, mapping_checked_at = $3
          WHERE organization_id = $1 AND (mapping_checked_at IS NULL OR mapping_checked_at <= $3)`,
        [organizationId, JSON.stringify(verdict), started],
        transaction,
      );
      if (stored.rowCount === 0) return;
      await this.deps.sql.query(
        `DELETE FROM crm_sync_errors
          WHERE organization_id = $1 AND type = 'property_mapping' AND NOT (property = ANY($2::text[]))`,
        [organizationId, [...problems.keys()].map((entry) => entry.crm_property)],
        transaction,
      );
      if (!reportInvalid) return;
      await this.deps.errorLog.record(
        organizationId,
        [...problems].map(([entry, problem]) => ({
          type: 'property_mapping' as const,
          crmError: problem.code,
          property: entry.crm_property,
          recordId: null,
          httpStatus: null,
          message: `${entry.service_field} is mapped to "${entry.crm_property}", ${problem.remedy}`,
        })),
        transaction,
      );
    });
    return verdict;
  }
}

const DATE_FIELDS: ReadonlySet<ServiceField> = new Set(['joinedAt', 'renewalDate']);

interface MappingProblem {
  code: 'PROPERTY_DOESNT_EXIST' | 'TYPE_MISMATCH';
  /** What the verdict says after the code. */
  detail: string;
  /** What the error list says after "<field> is mapped to "<property>",". */
  remedy: string;
}

/**
 * Why HubSpot would refuse this entry, if it would: the property does not exist, or its type cannot
 * hold the field's values (a date property takes only the member's dates, a number or a checkbox none
 * of the member's fields). Text takes anything; an enumeration is checked by HubSpot per record (its
 * options are the portal's).
 */
function problemOf(entry: MappingEntry, type: string | undefined): MappingProblem | null {
  const { service_field: field, crm_property: property } = entry;
  if (type === undefined)
    return {
      code: 'PROPERTY_DOESNT_EXIST',
      detail: `HubSpot has no contact property "${property}"`,
      remedy: 'which HubSpot does not have: create it (POST /api/crm/properties) or change the mapping',
    };
  let mismatch: string | null = null;
  if ((type === 'date' || type === 'datetime') && !DATE_FIELDS.has(field))
    mismatch = `HubSpot's property is a ${type}; ${field} is not a date`;
  else if (type === 'number' || type === 'bool') mismatch = `HubSpot's property is a ${type}; no member field is`;
  return mismatch ? { code: 'TYPE_MISMATCH', detail: mismatch, remedy: `${mismatch}: change the mapping` } : null;
}
