import type { components } from '../../types/openapi.d.ts';
import type { ActivityRow } from './activity.repository.ts';

export type ActivityEntryDto = components['schemas']['ActivityEntry'];

export function toActivityEntry(row: ActivityRow): ActivityEntryDto {
  return {
    id: row.id,
    occurredAt: new Date(row.occurredAt).toISOString(),
    action: row.action,
    actor: { type: row.actorType, id: row.actorId },
    impersonatorId: row.impersonatorId,
    targetType: row.targetType,
    targetId: row.targetId,
    before: row.before,
    after: row.after,
    requestId: row.requestId,
  };
}
