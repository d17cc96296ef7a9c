// Connecting an organization to HubSpot by OAuth, keeping its token fresh, and disconnecting.
// - Start: a client admin asks for the authorize URL; the `state` in it is single-use, expires in 10
//   minutes and is bound to that admin and organization (stored as a hash).
// - Callback: HubSpot's browser redirect lands on /auth/callback/crm; the code is exchanged server side,
//   the token's portal (hub_id, a string; portal name) read, tokens sealed with APP_SECRET.
// - Tokens are refreshed ahead of expiry (REFRESH_AHEAD_MS), never after a 401. A refused refresh
//   marks the connection `needs_reauthorization`: the sync stops, its queue is kept, and it resumes
//   when an admin reconnects.
import type { Sequelize, Transaction } from 'sequelize';
import { assertCan } from '../../shared/access/policy.ts';
import { requireTenant } from '../../shared/access/tenancy.ts';
import type { Actor } from '../../shared/access/actor.ts';
import type { Clock } from '../../shared/clock.ts';
import { decrypt, encrypt, randomToken, sha256 } from '../../shared/crypto.ts';
import { AppError, errors } from '../../shared/errors.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Sql } from '../../shared/sql.ts';
import { HUBSPOT_SCOPES, type HubSpotOAuth, type HubSpotTokens } from '../../integrations/hubspot/hubspot.client.ts';
import type { AuditService } from '../audit/index.ts';
import type { MappingStatus } from './crm-mapping.check.ts';
import { type MappingEntry, mappingProblems, policyProblems } from './crm-mapping.ts';

const STATE_TTL_MS = 10 * 60_000;
/** Refreshed this long before HubSpot's expiry (its access tokens live 30 minutes). */
export const REFRESH_AHEAD_MS = 5 * 60_000;

export type ConnectionStatus = 'connected' | 'needs_reauthorization' | 'disconnected';

export interface ConnectionRow {
  organization_id: string;
  status: ConnectionStatus;
  hub_id: string | null;
  portal_name: string | null;
  access_token_sealed: string | null;
  refresh_token_sealed: string | null;
  token_expires_at: Date | null;
  scopes: string[];
  connected_at: Date | null;
  delete_policy: 'mark' | 'archive';
  property_mapping: MappingEntry[];
  mapping_status: MappingStatus[] | null;
  mapping_checked_at: Date | null;
  last_sync_at: Date | null;
  last_error: string | null;
  contacts_synced: number;
  contacts_failed: number;
  companies_synced: number;
  engagements_synced: number;
  /** Calls today (UTC, the database's clock). */
  daily_used_today: number;
}

export type CallbackResult = 'connected' | 'expired' | 'denied' | 'taken' | 'failed';

export interface CallbackOutcome {
  organizationId: string | null;
  result: CallbackResult;
}

/** The portal's token, fresh for at least REFRESH_AHEAD_MS. */
export interface PortalAccess {
  hubId: string;
  accessToken: string;
}

interface Deps {
  sequelize: Sequelize;
  sql: Sql;
  clock: Clock;
  logger: Logger;
  audit: AuditService;
  key: Buffer;
  /** null when this environment has no HubSpot app configured. */
  oauth: HubSpotOAuth | null;
  authorizeUrl: string;
  redirectUri: string;
  clientId: string | null;
  /** Runs when a connection starts or resumes (the sync picks up what waited). */
  onConnected(organizationId: string, transaction: Transaction): Promise<void>;
}

/** The organization a client admin acts in (a platform admin names it with the organization header). */
export const organizationOf = (actor: Actor): string => requireTenant(actor);

export class CrmConnectionService {
  constructor(private readonly deps: Deps) {}

  /** The connection row, or undefined when the organization never connected. */
  row(organizationId: string, transaction?: Transaction): Promise<ConnectionRow | undefined> {
    return this.deps.sql.one<ConnectionRow>(
      `SELECT *,
              CASE WHEN daily_used_on = (clock_timestamp() AT TIME ZONE 'UTC')::date THEN daily_used ELSE 0 END
                AS daily_used_today
         FROM crm_connections WHERE organization_id = $1`,
      [organizationId],
      transaction,
    );
  }

  async view(actor: Actor): Promise<ConnectionRow | undefined> {
    assertCan(actor, 'integrations:configure');
    return this.row(organizationOf(actor));
  }

  /** The URL the Client Portal's "Connect HubSpot" button opens. */
  async start(actor: Actor): Promise<{ authorizeUrl: string; expiresAt: Date }> {
    assertCan(actor, 'integrations:configure');
    const organizationId = organizationOf(actor);
    const { oauth, clientId, sql, clock } = this.deps;
    if (!oauth || !clientId)
      throw new AppError('crm_not_configured', 'No HubSpot app is configured for this environment');
    const state = randomToken(24);
    const expiresAt = new Date(clock.now().getTime() + STATE_TTL_MS);
    await sql.query(
      'INSERT INTO crm_oauth_states (state_hash, organization_id, user_id, expires_at) VALUES ($1, $2, $3, $4)',
      [sha256(state), organizationId, actor.id, expiresAt],
    );
    const url = new URL(this.deps.authorizeUrl);
    url.searchParams.set('client_id', clientId);
    url.searchParams.set('redirect_uri', this.deps.redirectUri);
    url.searchParams.set('scope', HUBSPOT_SCOPES.join(' '));
    url.searchParams.set('state', state);
    return { authorizeUrl: url.toString(), expiresAt };
  }

  /** HubSpot's redirect: never throws, the browser page says what happened. */
  async complete(query: { code?: string; state?: string; error?: string }): Promise<CallbackOutcome> {
    const { sql, clock, oauth, logger } = this.deps;
    const claimed = query.state
      ? await sql.one<{ organization_id: string; user_id: string; expires_at: Date }>(
          'DELETE FROM crm_oauth_states WHERE state_hash = $1 RETURNING organization_id, user_id, expires_at',
          [sha256(query.state)],
        )
      : undefined;
    if (!claimed || new Date(claimed.expires_at) <= clock.now()) {
      return { organizationId: null, result: 'expired' };
    }
    if (query.error) return { organizationId: claimed.organization_id, result: 'denied' };
    // neither a code nor an error: not what HubSpot sends, so not a refusal of consent either
    if (!query.code || !oauth) return { organizationId: claimed.organization_id, result: 'failed' };
    // the state is bound to the admin who started: one suspended, deleted or demoted since completes nothing
    const starter = await sql.one(
      `SELECT 1 FROM users WHERE id = $1 AND status = 'active' AND deleted_at IS NULL
          AND (role = 'ROLE_PLATFORM_ADMIN' OR (role = 'ROLE_CLIENT_ADMIN' AND organization_id = $2))`,
      [claimed.user_id, claimed.organization_id],
    );
    if (!starter) return { organizationId: claimed.organization_id, result: 'expired' };
    let tokens: HubSpotTokens | undefined;
    try {
      tokens = await oauth.exchangeCode(query.code, this.deps.redirectUri);
      const portal = await oauth.portalOf(tokens.accessToken);
      await this.save(claimed.organization_id, claimed.user_id, tokens, portal);
      return { organizationId: claimed.organization_id, result: 'connected' };
    } catch (error) {
      // tokens issued for a connection that was not made are given back, not left live at HubSpot
      if (tokens) await oauth.revoke(tokens.refreshToken).catch(() => undefined);
      if (error instanceof AppError && error.code === 'conflict')
        return { organizationId: claimed.organization_id, result: 'taken' };
      logger.warn({ err: error, organizationId: claimed.organization_id }, 'CRM connection failed');
      return { organizationId: claimed.organization_id, result: 'failed' };
    }
  }

  private async save(
    organizationId: string,
    userId: string,
    tokens: HubSpotTokens,
    portal: { hubId: string; portalName: string; scopes: string[] },
  ): Promise<void> {
    const { sequelize, sql, clock, key, audit } = this.deps;
    await sequelize.transaction(async (transaction) => {
      const taken = await sql.one(
        `SELECT 1 FROM crm_connections WHERE hub_id = $1 AND organization_id <> $2 AND status <> 'disconnected'`,
        [portal.hubId, organizationId],
        transaction,
      );
      if (taken) throw errors.conflict('This HubSpot portal is already connected to another organization');
      // the contact and company ids HubSpot gave belong to the portal that gave them: another portal
      // gets its own (a company found under an old id was never created there, an archive hit a stranger)
      const previous = await sql.one<{ hub_id: string | null }>(
        'SELECT hub_id FROM crm_connections WHERE organization_id = $1 FOR UPDATE',
        [organizationId],
        transaction,
      );
      if (previous?.hub_id && previous.hub_id !== portal.hubId) {
        await sql.query('DELETE FROM crm_contacts WHERE organization_id = $1', [organizationId], transaction);
        await sql.query('DELETE FROM crm_companies WHERE organization_id = $1', [organizationId], transaction);
      }
      await sql.query(
        `INSERT INTO crm_connections (organization_id, status, hub_id, portal_name, access_token_sealed,
                refresh_token_sealed, token_expires_at, scopes, connected_by, connected_at, last_error)
         VALUES ($1, 'connected', $2, $3, $4, $5, $6, $7, $8, $9, NULL)
         ON CONFLICT (organization_id) DO UPDATE SET status = 'connected', hub_id = $2, portal_name = $3,
                access_token_sealed = $4, refresh_token_sealed = $5, token_expires_at = $6, scopes = $7,
                connected_by = $8, connected_at = $9, last_error = NULL, updated_at = now()`,
        [
          organizationId,
          portal.hubId,
          portal.portalName,
          encrypt(key, tokens.accessToken),
          encrypt(key, tokens.refreshToken),
          new Date(clock.now().getTime() + tokens.expiresInSeconds * 1000),
          portal.scopes,
          userId,
          clock.now(),
        ],
        transaction,
      );
      const actor: Actor = { type: 'user', id: userId, organizationId, role: 'ROLE_CLIENT_ADMIN', mfaVerified: false };
      await audit.record(
        actor,
        {
          action: 'crm.connected',
          targetType: 'crm_connection',
          targetId: organizationId,
          after: { hubId: portal.hubId, portalName: portal.portalName },
        },
        transaction,
      );
      // the token errors of the broken connection are answered by this one
      await sql.query(
        `DELETE FROM crm_sync_errors WHERE organization_id = $1 AND type = 'auth'`,
        [organizationId],
        transaction,
      );
      await this.deps.onConnected(organizationId, transaction);
    });
  }

  /** Revokes the refresh token at HubSpot (best effort) and forgets both tokens; the queue is dropped. */
  async disconnect(actor: Actor): Promise<void> {
    assertCan(actor, 'integrations:configure');
    const organizationId = organizationOf(actor);
    const row = await this.row(organizationId);
    if (!row || row.status === 'disconnected')
      throw new AppError('crm_not_connected', 'There is no HubSpot connection to remove');
    if (row.refresh_token_sealed && this.deps.oauth) {
      await this.deps.oauth.revoke(decrypt(this.deps.key, row.refresh_token_sealed)).catch((error) => {
        this.deps.logger.warn({ err: error, organizationId }, 'HubSpot did not confirm the token revocation');
      });
    }
    await this.deps.sequelize.transaction(async (transaction) => {
      await this.deps.sql.query(
        `UPDATE crm_connections SET status = 'disconnected', access_token_sealed = NULL, refresh_token_sealed = NULL,
                token_expires_at = NULL, updated_at = now() WHERE organization_id = $1`,
        [organizationId],
        transaction,
      );
      await this.deps.sql.query('DELETE FROM crm_sync_queue WHERE organization_id = $1', [organizationId], transaction);
      await this.deps.audit.record(
        actor,
        { action: 'crm.disconnected', targetType: 'crm_connection', targetId: organizationId },
        transaction,
      );
    });
  }

  /**
   * A token good for at least REFRESH_AHEAD_MS, refreshing it first when it expires sooner. Throws
   * crm_not_connected when the organization has no usable connection (never connected, disconnected,
   * or waiting for an admin to reconnect).
   */
  async access(organizationId: string): Promise<PortalAccess> {
    const { sql, clock, key, oauth } = this.deps;
    const row = await this.row(organizationId);
    if (!row || row.status !== 'connected' || !row.hub_id || !row.access_token_sealed || !row.refresh_token_sealed) {
      throw new AppError('crm_not_connected', 'The organization has no working HubSpot connection');
    }
    const expiresAt = row.token_expires_at ? new Date(row.token_expires_at).getTime() : 0;
    if (expiresAt - clock.now().getTime() > REFRESH_AHEAD_MS) {
      return { hubId: row.hub_id, accessToken: decrypt(key, row.access_token_sealed) };
    }
    if (!oauth) throw new AppError('crm_not_configured', 'No HubSpot app is configured for this environment');
    const tokens = await oauth.refresh(decrypt(key, row.refresh_token_sealed));
    await sql.query(
      `UPDATE crm_connections SET access_token_sealed = $2, refresh_token_sealed = $3, token_expires_at = $4,
              updated_at = now() WHERE organization_id = $1 AND status = 'connected'`,
      [
        organizationId,
        encrypt(key, tokens.accessToken),
        encrypt(key, tokens.refreshToken),
        new Date(clock.now().getTime() + tokens.expiresInSeconds * 1000),
      ],
    );
    return { hubId: row.hub_id, accessToken: tokens.accessToken };
  }

  /**
   * HubSpot refused the token (its error category given): stop until an admin reconnects (nothing
   * queued is dropped). Answers the reason, as shown to admins.
   */
  async tokenRefused(organizationId: string, category: string): Promise<string> {
    const reason = `HubSpot refused the token (${category}): reconnect HubSpot in the Client Portal`;
    await this.deps.sql.query(
      `UPDATE crm_connections SET status = 'needs_reauthorization', last_error = $2, updated_at = now()
        WHERE organization_id = $1 AND status = 'connected'`,
      [organizationId, reason],
    );
    return reason;
  }

  async setOptions(
    actor: Actor,
    input: { deletePolicy?: 'mark' | 'archive'; propertyMapping?: MappingEntry[] },
  ): Promise<ConnectionRow> {
    assertCan(actor, 'integrations:configure');
    const organizationId = organizationOf(actor);
    // a mapping that would write wrong data is wrong whatever the connection's state: said first
    const problems = mappingProblems(input.propertyMapping ?? []);
    if (problems.length) throw errors.validation(problems);
    const row = await this.row(organizationId);
    if (!row) throw new AppError('crm_not_connected', 'Connect HubSpot before changing its settings');
    const policy = policyProblems(
      input.deletePolicy ?? row.delete_policy,
      input.propertyMapping ?? row.property_mapping,
    );
    if (policy.length) throw errors.validation(policy);
    await this.deps.sequelize.transaction(async (transaction) => {
      await this.deps.sql.query(
        `UPDATE crm_connections SET delete_policy = COALESCE($2, delete_policy),
                property_mapping = COALESCE($3::jsonb, property_mapping),
                mapping_status = CASE WHEN $3::jsonb IS NULL THEN mapping_status END,
                mapping_checked_at = CASE WHEN $3::jsonb IS NULL THEN mapping_checked_at END,
                updated_at = now()
          WHERE organization_id = $1`,
        [
          organizationId,
          input.deletePolicy ?? null,
          input.propertyMapping ? JSON.stringify(input.propertyMapping) : null,
        ],
        transaction,
      );
      await this.deps.audit.record(
        actor,
        { action: 'crm.settings_changed', targetType: 'crm_connection', targetId: organizationId, after: input },
        transaction,
      );
    });
    return (await this.row(organizationId)) as ConnectionRow;
  }
}
