// What belongs to a user, for the deletion warning and the transfer of ownership. Modules whose rows
// name a user as owner add a line to OWNED; history is listed but never moved.
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { AssociatedDataDto } from './user.mapper.ts';

interface Owned {
  type: string;
  description: string;
  table: string;
  column: string;
}

/** Rows another user can take over. */
const OWNED: Owned[] = [{ type: 'api_keys', description: 'API keys created by the user (they stay active)', table: 'api_keys', column: 'created_by_user_id' }];

/** History kept as it is: it describes what happened, so it keeps naming the user. */
const HISTORY: Array<Owned & { cast?: string }> = [
  { type: 'audit_entries', description: 'Audit trail entries of actions by the user (kept)', table: 'audit_log', column: 'actor_id', cast: '::text' },
  { type: 'impersonation_sessions', description: 'Impersonation sessions of which the user was the target (kept)', table: 'impersonation_sessions', column: 'target_user_id' },
];

async function countOf(sequelize: Sequelize, item: Owned & { cast?: string }, userId: string, transaction?: Transaction): Promise<number> {
  const [row] = await sequelize.query<{ count: string }>(`SELECT count(*) AS count FROM ${item.table} WHERE ${item.column} = $1${item.cast ?? ''}`, {
    bind: [userId],
    type: QueryTypes.SELECT,
    transaction,
  });
  return Number(row?.count ?? 0);
}

export async function associatedDataOf(sequelize: Sequelize, userId: string, transaction?: Transaction): Promise<AssociatedDataDto[]> {
  const result: AssociatedDataDto[] = [];
  for (const item of OWNED) result.push({ type: item.type, description: item.description, count: await countOf(sequelize, item, userId, transaction), transferable: true });
  for (const item of HISTORY) result.push({ type: item.type, description: item.description, count: await countOf(sequelize, item, userId, transaction), transferable: false });
  return result;
}

export async function transferOwnership(sequelize: Sequelize, fromUserId: string, toUserId: string, transaction: Transaction): Promise<void> {
  for (const item of OWNED) {
    await sequelize.query(`UPDATE ${item.table} SET ${item.column} = $2 WHERE ${item.column} = $1`, { bind: [fromUserId, toUserId], transaction });
  }
}

/** One sentence per kind of data that exists. */
export function deletionWarnings(data: AssociatedDataDto[], transferredTo: string | null): string[] {
  return data
    .filter((d) => d.count > 0)
    .map((d) =>
      d.transferable && transferredTo
        ? `${d.count} × ${d.description}: ownership transferred to user ${transferredTo}.`
        : d.transferable
          ? `${d.count} × ${d.description}: still associated with the deleted user; transfer or revoke them.`
          : `${d.count} × ${d.description}.`,
    );
}
