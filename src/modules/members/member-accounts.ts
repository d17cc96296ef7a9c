// A member who has an account (signed in by SSO, provisioned by a directory) is linked to the
// organization's member record with the same e-mail, or one is created, through the members service
// so that member.created / member.updated are announced like any other change.
import { Op, Sequelize, type Transaction } from 'sequelize';
import { systemActor } from '../../shared/access/actor.ts';
import type { CrudService } from '../crud/crud.service.ts';
import type { MemberInput } from './member.mapper.ts';
import { Member, type MemberStatus } from './member.model.ts';

export interface MemberAccount {
  id: string;
  organizationId: string | null;
  firstName: string;
  lastName: string;
  email: string;
}

export class MemberAccounts {
  constructor(private readonly members: Pick<CrudService<Member, never, MemberInput>, 'create' | 'replace'>) {}

  /**
   * Links the account to its member record, or creates one (`create`), with `status` when given;
   * inside the caller's `transaction` when given (the member record then commits with the account).
   */
  async link(
    user: MemberAccount,
    options: { create: boolean; status?: MemberStatus },
    transaction?: Transaction,
  ): Promise<void> {
    const organizationId = user.organizationId;
    if (!organizationId) return;
    const actor = systemActor(organizationId);
    const member = await Member.findOne({
      where: {
        organizationId,
        [Op.or]: [
          { userId: user.id },
          {
            userId: null,
            [Op.and]: [Sequelize.where(Sequelize.fn('lower', Sequelize.col('email')), user.email.toLowerCase())],
          },
        ],
      },
      order: [['userId', 'ASC NULLS LAST']],
      transaction,
    });
    if (member) {
      const status = options.status ?? member.status;
      if (member.userId === user.id && member.status === status) return;
      const { id: _id, organizationId: _o, createdAt: _c, updatedAt: _u, ...writable } = member.get({ plain: true });
      await this.members.replace(
        actor,
        member.id,
        { ...writable, userId: user.id, status } as MemberInput,
        transaction,
      );
      return;
    }
    if (!options.create) return;
    await this.members.create(
      actor,
      {
        firstName: user.firstName,
        lastName: user.lastName,
        email: user.email,
        tier: 'member',
        status: options.status ?? 'active',
        userId: user.id,
      } as MemberInput,
      transaction,
    );
  }
}
