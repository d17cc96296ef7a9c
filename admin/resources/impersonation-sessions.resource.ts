// Impersonation sessions with the spec's attributes: the admin and the target by name, start, end,
// duration, mode, and the number of actions performed (requests made with the session), computed for
// the page in one query over the indexed session_id.
import type { BaseRecord } from 'adminjs';
import type { Model, ModelStatic } from 'sequelize';
import type { Clock } from '../../src/shared/clock.ts';
import type { Sql } from '../../src/shared/sql.ts';
import { AllowListedResource } from './allow-listed.resource.ts';

export const SESSION_FIGURES = ['adminName', 'targetUserName', 'duration', 'actionCount'] as const;

/** "4 min 05 s", or "2 h 03 min". */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h) return `${h} h ${String(m).padStart(2, '0')} min`;
  return `${m} min ${String(s).padStart(2, '0')} s`;
}

export class ImpersonationSessionsResource extends AllowListedResource {
  constructor(
    model: ModelStatic<Model>,
    properties: readonly string[],
    private readonly deps: { sql: Sql; clock: Clock },
  ) {
    super(
      model,
      properties.filter((name) => !(SESSION_FIGURES as readonly string[]).includes(name)),
    );
  }

  override async find(...args: Parameters<AllowListedResource['find']>): Promise<BaseRecord[]> {
    return this.figures(await super.find(...args));
  }

  /** The sessions a page of impersonated requests references, titled by their target's name. */
  override async findMany(ids: Array<string | number>): Promise<BaseRecord[]> {
    return this.figures(await super.findMany(ids));
  }

  override async findOne(id: string): Promise<BaseRecord | null> {
    const record = await super.findOne(id);
    return record && (await this.figures([record]))[0]!;
  }

  private async figures(records: BaseRecord[]): Promise<BaseRecord[]> {
    if (!records.length) return records;
    const rows = await this.deps.sql.rows<{
      id: string;
      adminName: string | null;
      targetUserName: string | null;
      actionCount: number;
    }>(
      `SELECT s.id::text AS id,
              a.first_name || ' ' || a.last_name AS "adminName",
              u.first_name || ' ' || u.last_name AS "targetUserName",
              (SELECT count(*)::int FROM impersonation_requests r WHERE r.session_id = s.id) AS "actionCount"
         FROM impersonation_sessions s
         LEFT JOIN users a ON a.id = s.admin_id
         LEFT JOIN users u ON u.id = s.target_user_id
        WHERE s.id = ANY($1::uuid[])`,
      [records.map((record) => String(record.id()))],
    );
    const now = this.deps.clock.now().getTime();
    for (const record of records) {
      const row = rows.find((r) => r.id === String(record.id()));
      const { params } = record;
      if (row?.adminName) params.adminName = row.adminName;
      if (row?.targetUserName) params.targetUserName = row.targetUserName;
      params.actionCount = row?.actionCount ?? 0;
      const end = params.endedAt
        ? new Date(params.endedAt as string).getTime()
        : Math.min(now, new Date(params.expiresAt as string).getTime());
      params.duration = `${durationText(end - new Date(params.startedAt as string).getTime())}${params.endedAt ? '' : end < now ? ' (expired)' : ' (open)'}`;
    }
    return records;
  }
}
