// What belongs to a user, for the deletion warning and the transfer of ownership. Modules whose rows
// name a user declare them in their manifest (`ownedUserData`); history is listed but never moved.
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { OwnedUserData } from '../../shared/module-manifest.ts';
import type { AssociatedDataDto } from './user.mapper.ts';

/** Every module's declarations (the platform collects them from the list), transferable rows first. */
export class UserOwnership {
  private readonly declared: readonly OwnedUserData[];

  constructor(
    private readonly sequelize: Sequelize,
    declared: readonly OwnedUserData[],
  ) {
    this.declared = [...declared.filter((d) => d.transferable), ...declared.filter((d) => !d.transferable)];
  }

  async associatedDataOf(userId: string, transaction?: Transaction): Promise<AssociatedDataDto[]> {
    const result: AssociatedDataDto[] = [];
    for (const item of this.declared) {
      result.push({
        type: item.type,
        description: item.description,
        count: await this.countOf(item, userId, transaction),
        transferable: item.transferable,
      });
    }
    return result;
  }

  async transfer(fromUserId: string, toUserId: string, transaction: Transaction): Promise<void> {
    for (const item of this.declared.filter((d) => d.transferable)) {
      await this.sequelize.query(`UPDATE ${item.table} SET ${item.column} = $2 WHERE ${item.column} = $1`, {
        bind: [fromUserId, toUserId],
        transaction,
      });
    }
  }

  /**
   * The user now belongs to `organizationId` (null: none, a platform admin): rows of other organizations
   * that link them only while they belonged there are unlinked (a member record stays its
   * organization's, without an account from another tenant).
   */
  async leaveOtherOrganizations(
    userId: string,
    organizationId: string | null,
    transaction: Transaction,
  ): Promise<void> {
    for (const item of this.declared.filter((d) => d.unlinkOutside)) {
      await this.sequelize.query(
        `UPDATE ${item.table} SET ${item.column} = NULL
          WHERE ${item.column} = $1${item.cast ?? ''} AND ${item.unlinkOutside} IS DISTINCT FROM $2`,
        { bind: [userId, organizationId], transaction },
      );
    }
  }

  private async countOf(item: OwnedUserData, userId: string, transaction?: Transaction): Promise<number> {
    const [row] = await this.sequelize.query<{ count: string }>(
      `SELECT count(*) AS count FROM ${item.table} WHERE ${item.column} = $1${item.cast ?? ''}`,
      {
        bind: [userId],
        type: QueryTypes.SELECT,
        transaction,
      },
    );
    return Number(row?.count ?? 0);
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
