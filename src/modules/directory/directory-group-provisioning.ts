// A directory's groups and their members. Roles follow group membership through the directory's
// mapping, the highest role winning, recomputed on every membership change; a directory never grants
// ROLE_PLATFORM_ADMIN. Every change is audited with the directory as the actor.
import type { Transaction } from 'sequelize';
import { isProvisionedRole } from '../../shared/access/roles.ts';
import { errors } from '../../shared/errors.ts';
import { User } from '../users/index.ts';
import type { Directory } from './directory.model.ts';
import {
  type DirectoryGroupInput,
  type DirectoryGroupRow,
  DirectoryWrites,
  directoryRoleFor,
  GROUP_COLUMNS,
} from './directory-provisioning.base.ts';

export class DirectoryGroupProvisioning extends DirectoryWrites {
  async findGroup(directory: Directory, id: string): Promise<DirectoryGroupRow | undefined> {
    return this.deps.sql.one<DirectoryGroupRow>(
      `SELECT ${GROUP_COLUMNS} FROM directory_groups WHERE directory_id = $1 AND id = $2`,
      [directory.id, id],
    );
  }

  async findGroupByExternalId(directory: Directory, externalId: string): Promise<DirectoryGroupRow | undefined> {
    return this.deps.sql.one<DirectoryGroupRow>(
      `SELECT ${GROUP_COLUMNS} FROM directory_groups WHERE directory_id = $1 AND external_id = $2`,
      [directory.id, externalId],
    );
  }

  /** The directory user ids of a group's members. */
  async groupMemberIds(groupId: string, transaction?: Transaction): Promise<string[]> {
    const rows = await this.deps.sql.rows<{ id: string }>(
      'SELECT directory_user_id AS id FROM directory_group_members WHERE group_id = $1 ORDER BY directory_user_id',
      [groupId],
      transaction,
    );
    return rows.map((r) => r.id);
  }

  async createGroup(
    directory: Directory,
    input: DirectoryGroupInput,
    memberIds: string[] = [],
  ): Promise<DirectoryGroupRow> {
    return this.write('displayName', async (transaction) => {
      const row = (await this.deps.sql.one<DirectoryGroupRow>(
        `INSERT INTO directory_groups (directory_id, organization_id, external_id, display_name, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $5) RETURNING ${GROUP_COLUMNS}`,
        [directory.id, directory.organizationId, input.externalId, input.displayName, this.deps.clock.now()],
        transaction,
      ))!;
      await this.addMembers(directory, row.id, memberIds, transaction);
      await this.record(
        directory,
        'directory.group_created',
        null,
        { groupId: row.id, displayName: input.displayName },
        transaction,
      );
      return row;
    });
  }

  /** PUT: the name and the whole membership. */
  async replaceGroup(
    directory: Directory,
    id: string,
    input: DirectoryGroupInput,
    memberIds: string[] | null,
  ): Promise<DirectoryGroupRow> {
    return this.write('displayName', async (transaction) => {
      const before = await this.groupMemberIds(id, transaction);
      const row = await this.deps.sql.one<DirectoryGroupRow>(
        `UPDATE directory_groups SET external_id = $3, display_name = $4, version = version + 1, updated_at = $5
          WHERE directory_id = $1 AND id = $2 RETURNING ${GROUP_COLUMNS}`,
        [directory.id, id, input.externalId, input.displayName, this.deps.clock.now()],
        transaction,
      );
      if (!row) throw errors.notFound('Group', id);
      if (memberIds) {
        await this.deps.sql.query('DELETE FROM directory_group_members WHERE group_id = $1', [id], transaction);
        await this.insertMembers(directory, id, memberIds, transaction);
      }
      // a rename can change what the group maps to: everyone in it before or after is recomputed
      await this.recomputeRoles(directory, [...new Set([...before, ...(memberIds ?? before)])], transaction);
      await this.record(
        directory,
        'directory.group_updated',
        null,
        { groupId: id, displayName: input.displayName },
        transaction,
      );
      return row;
    });
  }

  async addMembers(
    directory: Directory,
    groupId: string,
    memberIds: string[],
    transaction?: Transaction,
  ): Promise<void> {
    if (memberIds.length === 0) return;
    await this.inTransaction(transaction, async (tx) => {
      await this.insertMembers(directory, groupId, memberIds, tx);
      await this.touchGroup(groupId, tx);
      await this.recomputeRoles(directory, memberIds, tx);
    });
  }

  async removeMembers(directory: Directory, groupId: string, memberIds: string[]): Promise<void> {
    if (memberIds.length === 0) return;
    await this.write('userName or e-mail address', async (transaction) => {
      await this.deps.sql.query(
        'DELETE FROM directory_group_members WHERE group_id = $1 AND directory_user_id = ANY($2::uuid[])',
        [groupId, memberIds],
        transaction,
      );
      await this.touchGroup(groupId, transaction);
      await this.recomputeRoles(directory, memberIds, transaction);
    });
  }

  async deleteGroup(directory: Directory, id: string): Promise<void> {
    await this.write('userName or e-mail address', async (transaction) => {
      const members = await this.groupMemberIds(id, transaction);
      const deleted = await this.deps.sql.query(
        'DELETE FROM directory_groups WHERE directory_id = $1 AND id = $2',
        [directory.id, id],
        transaction,
      );
      if (deleted.rowCount === 0) throw errors.notFound('Group', id);
      await this.recomputeRoles(directory, members, transaction);
      await this.record(directory, 'directory.group_deleted', null, { groupId: id }, transaction);
    });
  }

  /** Members are directory users of this directory only: ids of another directory are refused. */
  private async insertMembers(
    directory: Directory,
    groupId: string,
    memberIds: string[],
    transaction: Transaction,
  ): Promise<void> {
    if (memberIds.length === 0) return;
    const inserted = await this.deps.sql.query(
      `INSERT INTO directory_group_members (group_id, directory_user_id)
       SELECT $1, u.id FROM directory_users u WHERE u.directory_id = $2 AND u.id = ANY($3::uuid[])
       ON CONFLICT DO NOTHING`,
      [groupId, directory.id, memberIds],
      transaction,
    );
    const known = await this.deps.sql.one<{ n: number }>(
      'SELECT count(*)::int AS n FROM directory_users WHERE directory_id = $1 AND id = ANY($2::uuid[])',
      [directory.id, [...new Set(memberIds)]],
      transaction,
    );
    if (known!.n !== new Set(memberIds).size)
      throw errors.validation([{ field: 'members', message: 'names a user that is not in this directory' }]);
    void inserted;
  }

  private async touchGroup(groupId: string, transaction: Transaction): Promise<void> {
    await this.deps.sql.query(
      'UPDATE directory_groups SET version = version + 1, updated_at = $2 WHERE id = $1',
      [groupId, this.deps.clock.now()],
      transaction,
    );
  }

  /** The role of each directory user's account, from the groups it is in now. */
  private async recomputeRoles(
    directory: Directory,
    directoryUserIds: string[],
    transaction: Transaction,
  ): Promise<void> {
    if (directoryUserIds.length === 0) return;
    const rows = await this.deps.sql.rows<{ userId: string | null; groups: string[] }>(
      `SELECT u.user_id AS "userId",
              COALESCE(array_agg(g.display_name) FILTER (WHERE g.id IS NOT NULL), '{}') ||
              COALESCE(array_agg(g.external_id) FILTER (WHERE g.external_id IS NOT NULL), '{}') AS groups
         FROM directory_users u
         LEFT JOIN directory_group_members m ON m.directory_user_id = u.id
         LEFT JOIN directory_groups g ON g.id = m.group_id
        WHERE u.directory_id = $1 AND u.id = ANY($2::uuid[])
        GROUP BY u.id`,
      [directory.id, directoryUserIds],
      transaction,
    );
    for (const { userId, groups } of rows) {
      if (!userId) continue;
      const user = await User.findByPk(userId, { transaction, lock: transaction.LOCK.UPDATE });
      if (!user || user.organizationId !== directory.organizationId) continue;
      if (!isProvisionedRole(user.role)) continue;
      const role = directoryRoleFor(directory, groups);
      if (role === user.role) continue;
      const before = user.role;
      await user.update({ role }, { transaction });
      await this.record(directory, 'directory.role_changed', user.id, { before, after: role, groups }, transaction);
    }
  }
}
