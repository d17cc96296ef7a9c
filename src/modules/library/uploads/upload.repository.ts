// SQL of resumable uploads (resource_uploads). Every read names the organization and the creator, so
// another tenant's or another user's upload is simply not found.
import type { Sql } from '../../../shared/sql.ts';

export interface UploadOwner {
  organizationId: string;
  creatorType: 'user' | 'api_key';
  creatorId: string;
}

export interface UploadRow {
  id: string;
  fileName: string;
  sizeBytes: number;
  offsetBytes: number;
  status: 'receiving' | 'finished';
  tempKey: string | null;
  sha256: string | null;
  expiresAt: Date;
}

const COLUMNS = `id, file_name AS "fileName", size_bytes::float8 AS "sizeBytes", offset_bytes::float8 AS "offsetBytes",
  status, temp_key AS "tempKey", sha256, expires_at AS "expiresAt"`;

export class UploadRepository {
  constructor(private readonly sql: Sql) {}

  async insert(
    id: string,
    owner: UploadOwner,
    upload: { fileName: string; sizeBytes: number; expiresAt: Date },
  ): Promise<void> {
    await this.sql.query(
      `INSERT INTO resource_uploads (id, organization_id, creator_type, creator_id, file_name, size_bytes, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        id,
        owner.organizationId,
        owner.creatorType,
        owner.creatorId,
        upload.fileName,
        upload.sizeBytes,
        upload.expiresAt,
      ],
    );
  }

  async findOwn(id: string, owner: UploadOwner): Promise<UploadRow | undefined> {
    return this.sql.one<UploadRow>(
      `SELECT ${COLUMNS} FROM resource_uploads WHERE id = $1 AND organization_id = $2 AND creator_type = $3 AND creator_id = $4`,
      [id, owner.organizationId, owner.creatorType, owner.creatorId],
    );
  }

  async recordOffset(id: string, offsetBytes: number): Promise<void> {
    await this.sql.query(
      `UPDATE resource_uploads SET offset_bytes = GREATEST(offset_bytes, $2) WHERE id = $1 AND status = 'receiving'`,
      [id, offsetBytes],
    );
  }

  async markFinished(
    id: string,
    file: { tempKey: string; sha256: string; expiresAt: Date; finishedAt: Date },
  ): Promise<void> {
    await this.sql.query(
      `UPDATE resource_uploads SET status = 'finished', offset_bytes = size_bytes, temp_key = $2, sha256 = $3, expires_at = $4, finished_at = $5 WHERE id = $1`,
      [id, file.tempKey, file.sha256, file.expiresAt, file.finishedAt],
    );
  }

  /**
   * Deletes the owner's finished, unexpired upload and returns it: taking is once only, even under
   * concurrency, and never after the expiry (the storage sweeper counts on it).
   * `whole` is the row as stored, for `restore`.
   */
  async takeFinished(id: string, owner: UploadOwner, now: Date): Promise<(UploadRow & { whole: unknown }) | undefined> {
    return this.sql.one<UploadRow & { whole: unknown }>(
      `DELETE FROM resource_uploads
        WHERE id = $1 AND organization_id = $2 AND creator_type = $3 AND creator_id = $4 AND status = 'finished'
          AND expires_at > $5
       RETURNING ${COLUMNS}, to_jsonb(resource_uploads.*) AS whole`,
      [id, owner.organizationId, owner.creatorType, owner.creatorId, now],
    );
  }

  /** Puts a taken upload back as it was stored (a taker that failed before using its bytes). */
  async restore(whole: unknown): Promise<void> {
    await this.sql.query(
      `INSERT INTO resource_uploads SELECT * FROM jsonb_populate_record(NULL::resource_uploads, $1::jsonb)
       ON CONFLICT (id) DO NOTHING`,
      [JSON.stringify(whole)],
    );
  }

  async delete(id: string): Promise<UploadRow | undefined> {
    return this.sql.one<UploadRow>(`DELETE FROM resource_uploads WHERE id = $1 RETURNING ${COLUMNS}`, [id]);
  }

  async expired(now: Date, limit: number): Promise<UploadRow[]> {
    return this.sql.rows<UploadRow>(
      `SELECT ${COLUMNS} FROM resource_uploads WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2`,
      [now, limit],
    );
  }

  /** Temp keys of finished uploads still waiting to be taken: the sweeper leaves them alone. */
  async pendingTempKeys(): Promise<Set<string>> {
    const rows = await this.sql.rows<{ tempKey: string }>(
      `SELECT temp_key AS "tempKey" FROM resource_uploads WHERE temp_key IS NOT NULL`,
    );
    return new Set(rows.map((row) => row.tempKey));
  }
}
