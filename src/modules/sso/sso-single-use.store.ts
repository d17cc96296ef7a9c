// Single-use records of a login, in the database so that any instance can finish a login another
// started: the state of a login in flight (sealed: nonce, PKCE verifier, SAML request id), the one-time
// code handed to the browser at the end, and the SAML assertion ids already accepted. Only hashes of
// the state and the code are stored; consuming is one UPDATE … WHERE consumed_at IS NULL, so two
// requests racing with the same value cannot both win.
import { createHash } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import { decrypt, encrypt, randomToken } from '../../shared/crypto.ts';
import type { Sql } from '../../shared/sql.ts';
import type { ReplayCache } from './protocols/sso-protocol.ts';

const hash = (value: string) => createHash('sha256').update(value).digest('hex');

export interface LoginState {
  connectionId: string;
  secrets: Record<string, string>;
  returnTo: string | null;
}

export interface Handoff {
  userId: string;
  connectionId: string | null;
  mfa: boolean;
}

export class SsoSingleUseStore implements ReplayCache {
  constructor(private readonly deps: { sql: Sql; clock: Clock; key: Buffer }) {}

  /** Records a login in flight under the `state` value sent along with it. */
  async saveState(value: string, state: LoginState, ttlSeconds: number): Promise<void> {
    const { connectionId, secrets, returnTo } = state;
    await this.deps.sql.query(
      'INSERT INTO sso_login_states (id, connection_id, sealed, expires_at) VALUES ($1, $2, $3, $4)',
      [
        hash(value),
        connectionId,
        encrypt(this.deps.key, JSON.stringify({ secrets, returnTo })),
        this.later(ttlSeconds),
      ],
    );
  }

  /** The login a state value started, once; null when unknown, expired or already used. */
  async takeState(value: string): Promise<LoginState | null> {
    const row = await this.deps.sql.one<{ connection_id: string; sealed: string }>(
      `UPDATE sso_login_states SET consumed_at = $2
        WHERE id = $1 AND consumed_at IS NULL AND expires_at > $2
        RETURNING connection_id, sealed`,
      [hash(value), this.deps.clock.now()],
    );
    if (!row) return null;
    const { secrets, returnTo } = JSON.parse(decrypt(this.deps.key, row.sealed)) as Omit<LoginState, 'connectionId'>;
    return { connectionId: row.connection_id, secrets, returnTo };
  }

  /** The one-time code the browser brings to POST /api/auth/sso/token. */
  async saveHandoff(handoff: Handoff, ttlSeconds: number): Promise<string> {
    const code = randomToken(32);
    await this.deps.sql.query(
      'INSERT INTO sso_handoffs (id, user_id, connection_id, mfa, expires_at) VALUES ($1, $2, $3, $4, $5)',
      [hash(code), handoff.userId, handoff.connectionId, handoff.mfa, this.later(ttlSeconds)],
    );
    return code;
  }

  async takeHandoff(code: string): Promise<Handoff | null> {
    const row = await this.deps.sql.one<{ user_id: string; connection_id: string | null; mfa: boolean }>(
      `UPDATE sso_handoffs SET consumed_at = $2
        WHERE id = $1 AND consumed_at IS NULL AND expires_at > $2
        RETURNING user_id, connection_id, mfa`,
      [hash(code), this.deps.clock.now()],
    );
    return row ? { userId: row.user_id, connectionId: row.connection_id, mfa: row.mfa } : null;
  }

  async remember(key: string, until: Date): Promise<boolean> {
    const row = await this.deps.sql.one(
      'INSERT INTO sso_replay_cache (key, expires_at) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING key',
      [hash(key), until],
    );
    return row !== undefined;
  }

  /** Drops what can no longer be used (run by the purge job). */
  async purgeExpired(): Promise<number> {
    const now = this.deps.clock.now();
    const results = await Promise.all([
      this.deps.sql.query('DELETE FROM sso_login_states WHERE expires_at < $1', [now]),
      this.deps.sql.query('DELETE FROM sso_handoffs WHERE expires_at < $1', [now]),
      this.deps.sql.query('DELETE FROM sso_replay_cache WHERE expires_at < $1', [now]),
    ]);
    return results.reduce((sum, r) => sum + r.rowCount, 0);
  }

  private later(seconds: number): Date {
    return new Date(this.deps.clock.now().getTime() + seconds * 1000);
  }
}
