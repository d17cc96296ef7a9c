// The identity service's platform settings (the spec's table: API key, client ID, redirect URI, webhook
// secret; plus the default connection). One row for the deployment, secrets sealed with APP_SECRET like
// the TOTP seeds. Only platform admins read or change them, and they only ever see the last four
// characters of a secret: the key is used by the backend alone (the spec's authentication point 8).
import type { Sequelize, Transaction } from 'sequelize';
import { assertCan } from '../../shared/access/policy.ts';
import type { Actor } from '../../shared/access/actor.ts';
import type { Clock } from '../../shared/clock.ts';
import { decrypt, encrypt } from '../../shared/crypto.ts';
import { errors, type FieldError } from '../../shared/errors.ts';
import type { Sql } from '../../shared/sql.ts';
import type { AuditService } from '../audit/index.ts';

export interface IdentityServiceSettings {
  apiKey: string;
  clientId: string;
  redirectUri: string;
  webhookSecret: string;
  defaultConnection: string | null;
}

/** What a platform admin sees: never a secret, only its last four characters. */
export interface IdentityServiceSettingsView {
  configured: boolean;
  apiKeyLast4: string | null;
  clientId: string | null;
  redirectUri: string | null;
  webhookSecretLast4: string | null;
  defaultConnection: string | null;
  updatedAt: Date | null;
}

/** A change: a secret left out (or empty) keeps the saved one. */
export type IdentityServiceSettingsInput = Partial<{
  apiKey: string;
  clientId: string;
  redirectUri: string;
  webhookSecret: string;
  defaultConnection: string | null;
}>;

interface Row {
  api_key_sealed: string | null;
  api_key_last4: string | null;
  client_id: string | null;
  redirect_uri: string | null;
  webhook_secret_sealed: string | null;
  webhook_secret_last4: string | null;
  default_connection: string | null;
  updated_at: Date;
}

const last4 = (secret: string) => secret.slice(-4);

function isAbsoluteUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

export class IdentityServiceSettingsService {
  constructor(
    private readonly deps: { sequelize: Sequelize; sql: Sql; clock: Clock; audit: AuditService; key: Buffer },
  ) {}

  /** The unsealed settings, for the backend's calls to the identity service; null until configured. */
  async current(): Promise<IdentityServiceSettings | null> {
    const row = await this.row();
    if (!row?.api_key_sealed || !row.client_id || !row.redirect_uri || !row.webhook_secret_sealed) return null;
    return {
      apiKey: decrypt(this.deps.key, row.api_key_sealed),
      clientId: row.client_id,
      redirectUri: row.redirect_uri,
      webhookSecret: decrypt(this.deps.key, row.webhook_secret_sealed),
      defaultConnection: row.default_connection,
    };
  }

  async view(actor: Actor): Promise<IdentityServiceSettingsView> {
    assertCan(actor, 'platform:admin');
    return toView(await this.row());
  }

  async save(actor: Actor, input: IdentityServiceSettingsInput): Promise<IdentityServiceSettingsView> {
    assertCan(actor, 'platform:admin');
    const { sequelize, sql, clock, audit, key } = this.deps;
    return sequelize.transaction(async (transaction) => {
      const before = await this.row(true, transaction);
      const apiKey = input.apiKey || null;
      const webhookSecret = input.webhookSecret || null;
      const next = {
        clientId: input.clientId ?? before?.client_id ?? null,
        redirectUri: input.redirectUri ?? before?.redirect_uri ?? null,
        defaultConnection:
          input.defaultConnection !== undefined
            ? input.defaultConnection || null
            : (before?.default_connection ?? null),
      };
      const problems: FieldError[] = [];
      if (apiKey !== null && !/^sk_[A-Za-z0-9_]{8,}$/.test(apiKey))
        problems.push({ field: 'apiKey', message: 'must begin with sk_ followed by at least 8 letters, digits or _' });
      if (apiKey === null && !before?.api_key_sealed) problems.push({ field: 'apiKey', message: 'is required' });
      if (webhookSecret === null && !before?.webhook_secret_sealed)
        problems.push({ field: 'webhookSecret', message: 'is required' });
      if (webhookSecret !== null && webhookSecret.length < 16)
        problems.push({ field: 'webhookSecret', message: 'must be at least 16 characters' });
      if (!next.clientId) problems.push({ field: 'clientId', message: 'is required' });
      if (!next.redirectUri || !isAbsoluteUrl(next.redirectUri))
        problems.push({ field: 'redirectUri', message: 'must be an absolute http(s) URL (the OAuth callback)' });
      if (problems.length > 0) throw errors.validation(problems);

      await sql.query(
        `INSERT INTO identity_service_settings AS s (id, api_key_sealed, api_key_last4, client_id, redirect_uri,
           webhook_secret_sealed, webhook_secret_last4, default_connection, updated_by_user_id, updated_at)
         VALUES (1, $1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (id) DO UPDATE SET
           api_key_sealed = COALESCE(EXCLUDED.api_key_sealed, s.api_key_sealed),
           api_key_last4 = COALESCE(EXCLUDED.api_key_last4, s.api_key_last4),
           client_id = EXCLUDED.client_id, redirect_uri = EXCLUDED.redirect_uri,
           webhook_secret_sealed = COALESCE(EXCLUDED.webhook_secret_sealed, s.webhook_secret_sealed),
           webhook_secret_last4 = COALESCE(EXCLUDED.webhook_secret_last4, s.webhook_secret_last4),
           default_connection = EXCLUDED.default_connection,
           updated_by_user_id = EXCLUDED.updated_by_user_id, updated_at = EXCLUDED.updated_at`,
        [
          apiKey && encrypt(key, apiKey),
          apiKey && last4(apiKey),
          next.clientId,
          next.redirectUri,
          webhookSecret && encrypt(key, webhookSecret),
          webhookSecret && last4(webhookSecret),
          next.defaultConnection,
          actor.type === 'user' ? actor.id : null,
          clock.now(),
        ],
        transaction,
      );
      const after = (await this.row(false, transaction))!;
      await audit.record(
        actor,
        {
          action: 'identity_service.settings_changed',
          targetType: 'identity_service_settings',
          organizationId: null,
          before: before ? auditable(before) : null,
          after: { ...auditable(after), apiKeyChanged: apiKey !== null, webhookSecretChanged: webhookSecret !== null },
        },
        transaction,
      );
      return toView(after);
    });
  }

  private async row(lock = false, transaction?: Transaction): Promise<Row | undefined> {
    return this.deps.sql.one<Row>(
      `SELECT * FROM identity_service_settings WHERE id = 1${lock ? ' FOR UPDATE' : ''}`,
      [],
      transaction,
    );
  }
}

/** The audit trail keeps what a platform admin may see, never a secret. */
function auditable(row: Row): Record<string, unknown> {
  const { updated_at: _u, api_key_sealed: _a, webhook_secret_sealed: _w, ...visible } = row;
  return visible;
}

function toView(row: Row | undefined): IdentityServiceSettingsView {
  return {
    configured: Boolean(row?.api_key_sealed && row.client_id && row.redirect_uri && row.webhook_secret_sealed),
    apiKeyLast4: row?.api_key_last4 ?? null,
    clientId: row?.client_id ?? null,
    redirectUri: row?.redirect_uri ?? null,
    webhookSecretLast4: row?.webhook_secret_last4 ?? null,
    defaultConnection: row?.default_connection ?? null,
    updatedAt: row?.updated_at ?? null,
  };
}
