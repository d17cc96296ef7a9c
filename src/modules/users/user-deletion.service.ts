// Deleting users: soft delete first (reversible by support, the trail stays), permanent delete only of
// a soft-deleted user and only with the e-mail typed again. Both are sensitive: MFA is required.
import type { Sequelize } from 'sequelize';
import type { Actor } from '../../shared/access/actor.ts';
import { assertCan, assertMfa } from '../../shared/access/policy.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError, errors } from '../../shared/errors.ts';
import type { AuditService } from '../audit/index.ts';
import { deletionWarnings, type UserOwnership } from './user-ownership.ts';
import { findUserRow, type UserRow } from './user-query.repository.ts';
import { toAuditSnapshot, type AssociatedDataDto } from './user.mapper.ts';
import { User } from './user.model.ts';
import { isUuid } from '../../shared/uuid.ts';

export interface UserDeletion {
  user: UserRow;
  associatedData: AssociatedDataDto[];
  warnings: string[];
  transferredTo: string | null;
}

export class UserDeletionService {
  constructor(
    private readonly deps: { sequelize: Sequelize; clock: Clock; audit: AuditService; ownership: UserOwnership },
  ) {}

  async softDelete(actor: Actor, id: string, options: { transferTo?: string } = {}): Promise<UserDeletion> {
    assertCan(actor, 'users:admin');
    assertMfa(actor);
    if (id === actor.id) throw new AppError('cannot_delete_self', 'You cannot delete your own account');
    const transferredTo = options.transferTo ?? null;
    // checked before any query: a malformed id would otherwise reach PostgreSQL as a uuid cast error (a 500)
    if (transferredTo && !isUuid(transferredTo))
      throw errors.unprocessable('transferTo must be another active user of the same organization');
    const associatedData = await this.deps.sequelize.transaction(async (transaction) => {
      const user = await User.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
      if (!user) throw errors.notFound('User', id);
      if (transferredTo) {
        const heir = await User.findByPk(transferredTo, { transaction });
        if (!heir || heir.id === user.id || heir.status !== 'active' || heir.organizationId !== user.organizationId) {
          throw errors.unprocessable('transferTo must be another active user of the same organization');
        }
      }
      const data = await this.deps.ownership.associatedDataOf(id, transaction);
      if (transferredTo) await this.deps.ownership.transfer(id, transferredTo, transaction);
      const before = toAuditSnapshot(user);
      // the injected clock, not Sequelize's own now(), so tests control it like every other time
      await User.update({ deletedAt: this.deps.clock.now() }, { where: { id }, transaction });
      await this.deps.audit.record(
        actor,
        {
          action: 'user.deleted',
          targetType: 'user',
          targetId: id,
          organizationId: user.organizationId,
          before,
          after: { deleted: true, transferredTo, associatedData: data },
        },
        transaction,
      );
      return data;
    });
    const user = (await findUserRow(this.deps.sequelize, id, { includeDeleted: true }))!;
    return { user, associatedData, warnings: deletionWarnings(associatedData, transferredTo), transferredTo };
  }

  async purge(actor: Actor, id: string, confirmEmail: string | undefined): Promise<void> {
    assertCan(actor, 'users:admin');
    assertMfa(actor);
    if (id === actor.id) throw new AppError('cannot_delete_self', 'You cannot delete your own account');
    await this.deps.sequelize.transaction(async (transaction) => {
      const user = await User.findByPk(id, { paranoid: false, transaction, lock: transaction.LOCK.UPDATE });
      if (!user) throw errors.notFound('User', id);
      if (!user.deletedAt)
        throw errors.conflict('Only a soft-deleted user can be deleted permanently; delete it first');
      if (confirmEmail?.trim().toLowerCase() !== user.email.toLowerCase()) {
        throw new AppError(
          'confirmation_required',
          "Permanent deletion is irreversible: repeat it with confirm=<the user's e-mail>",
        );
      }
      await this.deps.audit.record(
        actor,
        {
          action: 'user.purged',
          targetType: 'user',
          targetId: id,
          organizationId: user.organizationId,
          before: toAuditSnapshot(user),
        },
        transaction,
      );
      await user.destroy({ force: true, transaction });
    });
  }
}
