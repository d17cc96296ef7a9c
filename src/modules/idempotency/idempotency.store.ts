// Idempotency-Key records (repository SQL). A key is claimed before the request runs, completed with
// the response it produced, and released when it failed with a 5xx so that a retry runs it again.
import { QueryTypes, type Sequelize } from 'sequelize';
import type { Clock } from '../../shared/clock.ts';
import { decrypt, encrypt } from '../../shared/crypto.ts';

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface IdempotencyRecord {
  fingerprint: string;
  status: 'in_progress' | 'completed';
  response: StoredResponse | null;
}

export type Claim = { claimed: true } | { claimed: false; record: IdempotencyRecord };

/** Keys are kept a day; a claim older than a minute with no response is treated as abandoned. */
export const KEY_TTL_MS = 24 * 3600_000;
export const ABANDONED_AFTER_MS = 60_000;

interface Row {
  fingerprint: string;
  status: 'in_progress' | 'completed';
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: unknown;
}

/**
 * A stored body is sealed (AES-256-GCM): a response may carry what is shown once (a webhook's signing
 * secret) and is kept a day. Rows written before sealing hold the body as it was.
 */
type SealedBody = { sealed: string };
const isSealed = (body: unknown): body is SealedBody =>
  typeof body === 'object' && body !== null && typeof (body as SealedBody).sealed === 'string';

export class IdempotencyStore {
  constructor(private readonly deps: { sequelize: Sequelize; clock: Clock; key: Buffer }) {}

  async claim(scope: string, key: string, fingerprint: string): Promise<Claim> {
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + KEY_TTL_MS);
    const abandonedBefore = new Date(now.getTime() - ABANDONED_AFTER_MS);
    // Insert, or take over an expired or abandoned claim; otherwise nothing is written.
    const claimed = await this.deps.sequelize.query(
      `INSERT INTO idempotency_keys (scope, key, fingerprint, status, locked_at, expires_at)
       VALUES ($1, $2, $3, 'in_progress', $4, $5)
       ON CONFLICT (scope, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, status = 'in_progress', locked_at = EXCLUDED.locked_at,
             expires_at = EXCLUDED.expires_at, response_status = NULL, response_headers = NULL, response_body = NULL
         WHERE idempotency_keys.expires_at <= $4
            OR (idempotency_keys.status = 'in_progress' AND idempotency_keys.locked_at < $6)
       RETURNING key`,
      { bind: [scope, key, fingerprint, now, expiresAt, abandonedBefore], type: QueryTypes.SELECT },
    );
    if (claimed.length) return { claimed: true };
    const [row] = await this.deps.sequelize.query<Row>(
      'SELECT fingerprint, status, response_status, response_headers, response_body FROM idempotency_keys WHERE scope = $1 AND key = $2',
      { bind: [scope, key], type: QueryTypes.SELECT },
    );
    if (!row) return this.claim(scope, key, fingerprint); // released in between: try again
    return {
      claimed: false,
      record: {
        fingerprint: row.fingerprint,
        status: row.status,
        response:
          row.response_status === null
            ? null
            : {
                status: row.response_status,
                headers: row.response_headers ?? {},
                body: isSealed(row.response_body)
                  ? JSON.parse(decrypt(this.deps.key, row.response_body.sealed))
                  : row.response_body,
              },
      },
    };
  }

  async complete(scope: string, key: string, response: StoredResponse): Promise<void> {
    await this.deps.sequelize.query(
      `UPDATE idempotency_keys SET status = 'completed', response_status = $3, response_headers = $4, response_body = $5
        WHERE scope = $1 AND key = $2`,
      {
        bind: [
          scope,
          key,
          response.status,
          JSON.stringify(response.headers),
          JSON.stringify({
            sealed: encrypt(this.deps.key, JSON.stringify(response.body ?? null)),
          } satisfies SealedBody),
        ],
      },
    );
  }

  async release(scope: string, key: string): Promise<void> {
    await this.deps.sequelize.query(
      "DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND status = 'in_progress'",
      { bind: [scope, key] },
    );
  }

  async purgeExpired(): Promise<number> {
    const [, meta] = await this.deps.sequelize.query('DELETE FROM idempotency_keys WHERE expires_at < $1', {
      bind: [this.deps.clock.now()],
    });
    return (meta as { rowCount?: number }).rowCount ?? 0;
  }
}
