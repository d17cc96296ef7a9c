// What platform admins (and CSRs) see of an organization's CRM: the spec's status, error list, retry
// and property mapping. The status is read from stored state only (no call to HubSpot per request);
// the mapping is checked against HubSpot when the organization is connected, else the last verdict.
import type { Sequelize } from 'sequelize';
import { assertCan } from '../../shared/access/policy.ts';
import type { Actor } from '../../shared/access/actor.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError, errors } from '../../shared/errors.ts';
import type { Sql } from '../../shared/sql.ts';
import { HubSpotCrm, HubSpotError, type HubSpotEndpoint } from '../../integrations/hubspot/hubspot.client.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { AuditService } from '../audit/index.ts';
import { BURST_WINDOW_SECONDS, CrmBudget } from './crm-budget.ts';
import type { ConnectionRow, CrmConnectionService } from './crm-connection.service.ts';
import type { CrmMappingCheck, MappingStatus } from './crm-mapping.check.ts';
import { CUSTOM_PROPERTIES } from './crm-mapping.ts';

export interface CrmStatus {
  connected: boolean;
  hub_id: string | null;
  portal_name: string | null;
  token_expires_at: string | null;
  scopes: Array<'contacts' | 'companies' | 'timeline'>;
  last_sync: string | null;
  sync_stats: {
    contacts_synced: number;
    contacts_failed: number;
    companies_synced: number;
    engagements_synced: number;
  };
  rate_limit: { daily_limit: number; daily_used: number; secondly_limit: number };
}

export interface CrmErrorRow {
  id: string;
  type: string;
  crm_error: string;
  property: string | null;
  record_id: string | null;
  http_status: number | null;
  message: string;
  created_at: Date;
}

/** One sync run as the Admin Portal's CRM page shows it. */
export interface CrmRunRow {
  id: string;
  status: string;
  contacts_sent: number;
  contacts_failed: number;
  calls: number;
  detail: string | null;
  started_at: Date;
  finished_at: Date | null;
}

/** One organization's connection as the Admin Portal lists it: its state, and the spec's status figures. */
export interface CrmConnectionSummary {
  organization_id: string;
  organization_name: string;
  connection_status: ConnectionRow['status'];
  last_error: string | null;
  status: CrmStatus;
}

export interface ErrorQuery {
  page: number;
  itemsPerPage: number;
  type?: string;
  since?: Date;
  until?: Date;
}

/** HubSpot's fine-grained scopes as the spec's coarse names. */
export function coarseScopes(scopes: readonly string[]): Array<'contacts' | 'companies' | 'timeline'> {
  const coarse = new Set<'contacts' | 'companies' | 'timeline'>();
  for (const scope of scopes) {
    if (scope.startsWith('crm.objects.contacts')) coarse.add('contacts');
    else if (scope.startsWith('crm.objects.companies')) coarse.add('companies');
    else if (scope === 'timeline') coarse.add('timeline');
  }
  return [...coarse];
}

interface Deps {
  sequelize: Sequelize;
  sql: Sql;
  clock: Clock;
  audit: AuditService;
  queue: JobQueue;
  hubspot: HubSpotEndpoint;
  limits: { burst: number; daily: number };
  connections: CrmConnectionService;
  mapping: CrmMappingCheck;
  budget: CrmBudget;
}

/** Why a mapping entry HubSpot has never judged is "invalid" (the contract's status is valid or invalid). */
export const NOT_CONNECTED = 'the organization is not connected to HubSpot';
export const MAPPING_NOT_CHECKED = `Not checked: ${NOT_CONNECTED}`;

export class CrmDiagnosticsService {
  constructor(private readonly deps: Deps) {}

  /** Platform admins only; an unknown organization is a 404. */
  private async organization(actor: Actor, organizationId: string): Promise<void> {
    assertCan(actor, 'platform:admin');
    const known = await this.deps.sql.one('SELECT 1 FROM organizations WHERE id = $1', [organizationId]);
    if (!known) throw errors.notFound('Organization', organizationId);
  }

  async status(actor: Actor, organizationId: string): Promise<CrmStatus> {
    await this.organization(actor, organizationId);
    return this.statusOf(await this.deps.connections.row(organizationId));
  }

  statusOf(row: ConnectionRow | undefined): CrmStatus {
    const { burst, daily } = this.deps.limits;
    const connected = row?.status === 'connected';
    return {
      connected,
      hub_id: row?.hub_id ?? null,
      portal_name: row?.portal_name ?? null,
      token_expires_at: connected && row?.token_expires_at ? new Date(row.token_expires_at).toISOString() : null,
      scopes: connected ? coarseScopes(row?.scopes ?? []) : [],
      last_sync: row?.last_sync_at ? new Date(row.last_sync_at).toISOString() : null,
      sync_stats: {
        contacts_synced: row?.contacts_synced ?? 0,
        contacts_failed: row?.contacts_failed ?? 0,
        companies_synced: row?.companies_synced ?? 0,
        engagements_synced: row?.engagements_synced ?? 0,
      },
      rate_limit: {
        daily_limit: daily,
        daily_used: row?.daily_used_today ?? 0,
        // HubSpot counts a rolling 10 seconds; per second, that budget is this many calls
        secondly_limit: Math.max(1, Math.floor(burst / BURST_WINDOW_SECONDS)),
      },
    };
  }

  /**
   * The organizations that have a connection row (connected, needing reauthorization or disconnected),
   * by name; or only the one asked for. For the Admin Portal's CRM page.
   */
  async connections(
    actor: Actor,
    query: { organizationId?: string; limit?: number } = {},
  ): Promise<{ rows: CrmConnectionSummary[]; total: number }> {
    assertCan(actor, 'platform:admin');
    const values = [query.organizationId ?? null];
    const [rows, count] = await Promise.all([
      this.deps.sql.rows<ConnectionRow & { organization_name: string }>(
        `SELECT c.*, o.name AS organization_name,
                CASE WHEN c.daily_used_on = (clock_timestamp() AT TIME ZONE 'UTC')::date
                     THEN c.daily_used ELSE 0 END AS daily_used_today
           FROM crm_connections c JOIN organizations o ON o.id = c.organization_id
          WHERE $1::uuid IS NULL OR c.organization_id = $1
          ORDER BY o.name, c.organization_id LIMIT $2`,
        [...values, query.limit ?? 200],
      ),
      this.deps.sql.one<{ total: number }>(
        'SELECT count(*)::int AS total FROM crm_connections WHERE $1::uuid IS NULL OR organization_id = $1',
        values,
      ),
    ]);
    return {
      total: count?.total ?? 0,
      rows: rows.map((row) => ({
        organization_id: row.organization_id,
        organization_name: row.organization_name,
        connection_status: row.status,
        last_error: row.last_error,
        status: this.statusOf(row),
      })),
    };
  }

  async errors(
    actor: Actor,
    organizationId: string,
    query: ErrorQuery,
  ): Promise<{ rows: CrmErrorRow[]; total: number }> {
    await this.organization(actor, organizationId);
    const where = [
      'organization_id = $1',
      '($2::text IS NULL OR type = $2)',
      '($3::timestamptz IS NULL OR created_at >= $3)',
      '($4::timestamptz IS NULL OR created_at < $4)',
    ].join(' AND ');
    const values = [organizationId, query.type ?? null, query.since ?? null, query.until ?? null];
    const [rows, count] = await Promise.all([
      this.deps.sql.rows<CrmErrorRow>(
        `SELECT * FROM crm_sync_errors WHERE ${where} ORDER BY created_at DESC, id
          LIMIT ${query.itemsPerPage} OFFSET ${(query.page - 1) * query.itemsPerPage}`,
        values,
      ),
      this.deps.sql.one<{ total: number }>(`SELECT count(*)::int AS total FROM crm_sync_errors WHERE ${where}`, values),
    ]);
    return { rows, total: count?.total ?? 0 };
  }

  /**
   * Re-queues the records of these errors. Contact errors go back to the queue (the error is cleared
   * when the record goes through, replaced when it fails again); mapping and token errors are
   * re-checked by the next run; a token error only once the connection works again (409 before).
   * Ids that are not this organization's errors, or whose member no longer exists (that error is
   * removed), are answered as unknown.
   */
  async retry(
    actor: Actor,
    organizationId: string,
    errorIds: string[],
  ): Promise<{ queued: string[]; unknown: string[] }> {
    await this.organization(actor, organizationId);
    const { sql, sequelize, queue, audit } = this.deps;
    const ids = [...new Set(errorIds)];
    const uuids = ids.filter((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id));
    const connected = (await this.deps.connections.row(organizationId))?.status === 'connected';
    return sequelize.transaction(async (transaction) => {
      const all = await sql.rows<{ id: string; type: string; record_id: string | null }>(
        'SELECT id, type, record_id FROM crm_sync_errors WHERE organization_id = $1 AND id = ANY($2::uuid[])',
        [organizationId, uuids],
        transaction,
      );
      // a token error is the evidence of a broken connection: it goes once the admin has reconnected
      if (!connected && all.some((e) => e.type === 'auth'))
        throw new AppError('crm_not_connected', 'Reconnect HubSpot first: a token error clears once it works again');
      const requeued = await sql.rows<{ member_id: string }>(
        `INSERT INTO crm_sync_queue (organization_id, member_id, email, action)
         SELECT organization_id, id, email, 'upsert' FROM members WHERE organization_id = $1 AND id = ANY($2::uuid[])
         ON CONFLICT (organization_id, member_id) DO UPDATE SET version = crm_sync_queue.version + 1
         RETURNING member_id`,
        [organizationId, all.filter((e) => e.type === 'contact_sync').map((e) => e.record_id)],
        transaction,
      );
      // a contact error stays until its resent record answers; every other error goes now: mapping and
      // token errors are checked again by the next run, and a contact error whose member is gone has
      // nothing to resend (it is not "queued")
      const resent = new Set(requeued.map((row) => row.member_id));
      const kept = all.filter((e) => e.type === 'contact_sync' && e.record_id !== null && resent.has(e.record_id));
      const found = all.filter((e) => e.type !== 'contact_sync' || kept.includes(e));
      await sql.query(
        'DELETE FROM crm_sync_errors WHERE organization_id = $1 AND id = ANY($2::uuid[])',
        [organizationId, all.filter((e) => !kept.includes(e)).map((e) => e.id)],
        transaction,
      );
      if (found.length > 0) await queue.enqueue('crm.sync', { organizationId }, { transaction });
      await audit.record(
        actor,
        {
          organizationId,
          action: 'crm.errors_retried',
          targetType: 'crm_connection',
          targetId: organizationId,
          after: { errorIds: found.map((e) => e.id) },
        },
        transaction,
      );
      const queued = new Set(found.map((e) => e.id));
      return { queued: ids.filter((id) => queued.has(id)), unknown: ids.filter((id) => !queued.has(id)) };
    });
  }

  async propertyMapping(actor: Actor, organizationId: string): Promise<MappingStatus[]> {
    await this.organization(actor, organizationId);
    return this.checkedMapping(organizationId);
  }

  /** Checked against HubSpot when connected; otherwise the last verdict, or "not checked" for each. */
  async checkedMapping(organizationId: string): Promise<MappingStatus[]> {
    const row = await this.deps.connections.row(organizationId);
    if (row?.status === 'connected') {
      return this.answeredByHubSpot(organizationId, async () => {
        const access = await this.deps.connections.access(organizationId);
        const crm = new HubSpotCrm(this.deps.hubspot, access.accessToken);
        return this.deps.mapping.check(organizationId, crm, (work) =>
          this.withBudget(organizationId, access.hubId, work),
        );
      });
    }
    const mapping = await this.deps.mapping.stored(organizationId);
    const verdict = new Map((row?.mapping_status ?? []).map((entry) => [entry.crm_property, entry]));
    return mapping.map((entry) => {
      const last = verdict.get(entry.crm_property);
      if (last) return { ...entry, status: last.status, ...(last.error ? { error: last.error } : {}) };
      return { ...entry, status: 'invalid', error: MAPPING_NOT_CHECKED };
    });
  }

  /** "Create missing properties": the custom properties the mapping needs that HubSpot lacks. */
  async createMissingProperties(organizationId: string): Promise<string[]> {
    return this.answeredByHubSpot(organizationId, async () => {
      const access = await this.deps.connections.access(organizationId);
      const crm = new HubSpotCrm(this.deps.hubspot, access.accessToken);
      const call = <T>(work: () => Promise<T>) => this.withBudget(organizationId, access.hubId, work);
      const existing = new Set((await call(() => crm.contactProperties())).map((p) => p.name));
      const missing = CUSTOM_PROPERTIES.filter((property) => !existing.has(property.name));
      if (missing.length > 0) await call(() => crm.createContactProperties([...missing]));
      // the check clears the property_mapping errors of what is valid now
      await this.deps.mapping.check(organizationId, crm, call);
      return missing.map((p) => p.name);
    });
  }

  /**
   * A request that asks HubSpot answers HubSpot's refusal in our terms: a refused token marks the
   * connection for reconnection (409 crm_not_connected), HubSpot's 429 is ours with its Retry-After,
   * and an outage, a timeout or an answer we cannot use is 503.
   */
  private async answeredByHubSpot<T>(organizationId: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof HubSpotError)) throw error;
      if (error.unauthorized)
        throw new AppError(
          'crm_not_connected',
          await this.deps.connections.tokenRefused(organizationId, error.category),
        );
      if (error.rateLimited)
        throw errors.tooManyRequests('rate_limited', error.retryAfterSeconds ?? 10, 'HubSpot answered 429');
      throw new AppError(
        'service_unavailable',
        `HubSpot could not answer (${error.status || error.category}): ${error.message}; retry later`,
        { headers: { 'Retry-After': '30' } },
      );
    }
  }

  /** A diagnostic call counts against the portal's budget like a sync call; it does not wait. */
  private async withBudget<T>(organizationId: string, hubId: string, work: () => Promise<T>): Promise<T> {
    const grant = await this.deps.budget.take(organizationId, hubId);
    if (!grant.granted)
      throw errors.tooManyRequests(
        'rate_limited',
        grant.waitMs / 1000,
        "The portal's HubSpot call budget is in use; try again shortly",
      );
    return CrmBudget.answered(grant, work);
  }

  async runs(organizationId: string, limit = 10): Promise<CrmRunRow[]> {
    return this.deps.sql.rows<CrmRunRow>(
      'SELECT * FROM crm_sync_runs WHERE organization_id = $1 ORDER BY started_at DESC LIMIT $2',
      [organizationId, limit],
    );
  }
}
