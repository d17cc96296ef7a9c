// Admin Portal > Users: the datagrid, details, create and edit. Deletion and passwords have their own
// services. Every entry point takes the actor first and checks the policy before anything else.
import type { Readable } from 'node:stream';
import { Op, Sequelize, UniqueConstraintError, type Transaction } from 'sequelize';
import type { Config } from '../../config.ts';
import type { Actor } from '../../shared/access/actor.ts';
import { assertCan, assertMfa } from '../../shared/access/policy.ts';
import { scopeFor } from '../../shared/access/scope.ts';
import { HOME_PORTAL, PRIVILEGE, type Role } from '../../shared/access/roles.ts';
import { hashPassword, randomToken } from '../../shared/crypto.ts';
import { AppError, errors } from '../../shared/errors.ts';
import { pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import type { AuditService } from '../audit/index.ts';
import type { MailService } from '../mail/index.ts';
import { Organization } from '../organizations/index.ts';
import type { PasswordResetService } from './password-reset.service.ts';
import { openUserExport } from './user-export.ts';
import type { UserOwnership } from './user-ownership.ts';
import {
  findUserPage,
  findUserRow,
  type UserListFilter,
  type UserRow,
  type UserSort,
} from './user-query.repository.ts';
import { toAuditSnapshot, type AssociatedDataDto } from './user.mapper.ts';
import { checkUserFields } from './user-fields.ts';
import { User, type UserStatus } from './user.model.ts';

export interface CreateUserInput {
  firstName: string;
  lastName: string;
  email: string;
  phone?: string | null;
  role: Role;
  organizationId?: string | null;
  status?: 'active' | 'pending';
  password?: string;
  generatePassword?: boolean;
}

export interface UpdateUserInput {
  firstName?: string;
  lastName?: string;
  email?: string;
  phone?: string | null;
  role?: Role;
  organizationId?: string | null;
  status?: UserStatus;
  confirmPrivilegeChange?: boolean;
}

const EDITABLE_STATUSES: UserStatus[] = ['active', 'inactive', 'suspended'];

export class UserAdminService {
  constructor(
    private readonly deps: {
      sequelize: Sequelize;
      audit: AuditService;
      mail: MailService;
      passwords: PasswordResetService;
      ownership: UserOwnership;
      config: Pick<Config, 'portals'>;
    },
  ) {}

  async list(actor: Actor, filter: UserListFilter, sort: UserSort, page: PageRequest): Promise<Page<UserRow>> {
    const { rows, total } = await findUserPage(
      this.deps.sequelize,
      scopeFor(actor, 'user', 'read'),
      filter,
      sort,
      page,
    );
    return pageOf(rows, total, page);
  }

  /** The CSV export of the same filtered list, as a byte stream. */
  async export(actor: Actor, filter: UserListFilter, sort: UserSort): Promise<Readable> {
    return openUserExport(this.deps.sequelize, scopeFor(actor, 'user', 'read'), filter, sort);
  }

  async get(actor: Actor, id: string): Promise<{ user: UserRow; associatedData: AssociatedDataDto[] }> {
    assertCan(actor, 'users:read');
    const user = await findUserRow(this.deps.sequelize, id, { includeDeleted: true });
    if (!user) throw errors.notFound('User', id);
    return { user, associatedData: await this.deps.ownership.associatedDataOf(id) };
  }

  async create(actor: Actor, input: CreateUserInput): Promise<UserRow> {
    assertCan(actor, 'users:admin');
    checkUserFields(input, 'create');
    // the highest privilege is granted as impersonation and deletion are done: with a verified MFA step
    if (input.role === 'ROLE_PLATFORM_ADMIN') assertMfa(actor);
    if (input.password && input.generatePassword) {
      throw errors.validation([{ field: 'generatePassword', message: 'cannot be combined with password' }]);
    }
    const generatedPassword = input.generatePassword ? randomToken(12) : undefined;
    const initialPassword = input.password ?? generatedPassword;
    const passwordHash = initialPassword ? await hashPassword(initialPassword) : null;
    const organizationId = input.organizationId ?? null;
    const id = await this.withEmailUniqueness(() =>
      this.deps.sequelize.transaction(async (transaction) => {
        await this.assertPlacement(input.role, organizationId, transaction);
        await this.assertEmailFree(input.email, transaction);
        const user = await User.create(
          {
            firstName: input.firstName,
            lastName: input.lastName,
            email: input.email.trim(),
            phone: input.phone ?? null,
            role: input.role,
            organizationId,
            status: input.status ?? 'active',
            passwordHash,
          },
          { transaction },
        );
        await this.deps.audit.record(
          actor,
          {
            action: 'user.created',
            targetType: 'user',
            targetId: user.id,
            organizationId,
            after: toAuditSnapshot(user),
          },
          transaction,
        );
        // a pending account (its address not yet verified) always gets the single-use link: following it
        // verifies the address and activates the account (PasswordResetService.resetWithToken)
        const setup =
          initialPassword && user.status !== 'pending'
            ? undefined
            : await this.deps.passwords.issue(user, 'setup', transaction);
        await this.deps.mail.send(
          { address: user.email, userId: user.id },
          {
            template: 'welcome',
            data: {
              firstName: user.firstName,
              email: user.email,
              loginUrl: this.deps.config.portals[HOME_PORTAL[user.role]],
              pending: user.status === 'pending',
              generatedPassword,
              setupUrl: setup?.url,
              setupExpiresAt: setup?.expiresAt,
            },
          },
          transaction,
        );
        return user.id;
      }),
    );
    return (await findUserRow(this.deps.sequelize, id))!;
  }

  async update(actor: Actor, id: string, input: UpdateUserInput): Promise<UserRow> {
    assertCan(actor, 'users:admin');
    checkUserFields(input, 'update');
    await this.withEmailUniqueness(() =>
      this.deps.sequelize.transaction(async (transaction) => {
        const user = await User.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
        if (!user) throw errors.notFound('User', id);
        const changes = changesOf(user, input);
        if (id === actor.id && (changes.role !== undefined || changes.status !== undefined)) {
          throw new AppError('cannot_modify_self', 'You cannot change your own role or status');
        }
        const managed = (['firstName', 'lastName', 'email', 'role', 'organizationId'] as const).filter(
          (field) => changes[field] !== undefined,
        );
        if (user.directoryId && managed.length > 0) {
          // the directory would overwrite the change on its next sync: say where to make it instead
          throw new AppError(
            'managed_by_directory',
            `${user.email} is provisioned by a directory: change ${managed.join(', ')} there (status and phone may be changed here)`,
            { errors: managed.map((field) => ({ field, message: 'is managed by the directory' })) },
          );
        }
        if (changes.status !== undefined && !EDITABLE_STATUSES.includes(changes.status)) {
          throw errors.validation([{ field: 'status', message: `can be set to ${EDITABLE_STATUSES.join(', ')}` }]);
        }
        if (changes.role === 'ROLE_PLATFORM_ADMIN') assertMfa(actor);
        if (
          changes.role !== undefined &&
          PRIVILEGE[changes.role] > PRIVILEGE[user.role] &&
          input.confirmPrivilegeChange !== true
        ) {
          throw new AppError(
            'confirmation_required',
            `Raising ${user.email} from ${user.role} to ${changes.role} needs confirmPrivilegeChange: true`,
          );
        }
        // a platform admin belongs to no organization (they name one per request): promotion leaves it
        if (changes.role === 'ROLE_PLATFORM_ADMIN' && input.organizationId === undefined && user.organizationId)
          changes.organizationId = null;
        if (changes.role !== undefined || changes.organizationId !== undefined) {
          await this.assertPlacement(
            changes.role ?? user.role,
            changes.organizationId !== undefined ? changes.organizationId : user.organizationId,
            transaction,
          );
        }
        if (changes.email !== undefined) await this.assertEmailFree(changes.email, transaction, user.id);
        if (Object.keys(changes).length === 0) return;
        const before = toAuditSnapshot(user);
        await user.update(changes, { transaction });
        if (changes.organizationId !== undefined)
          await this.deps.ownership.leaveOtherOrganizations(user.id, changes.organizationId, transaction);
        await this.auditChanges(actor, user, before, toAuditSnapshot(user), transaction);
      }),
    );
    return (await findUserRow(this.deps.sequelize, id))!;
  }

  /** One audit row per kind of change, so the activity log can be filtered by role or status changes. */
  private async auditChanges(
    actor: Actor,
    user: User,
    before: Record<string, unknown>,
    after: Record<string, unknown>,
    transaction: Transaction,
  ): Promise<void> {
    const aspects: Array<[string, string[]]> = [
      ['user.role_changed', ['role']],
      ['user.status_changed', ['status']],
      ['user.updated', ['firstName', 'lastName', 'email', 'phone', 'organizationId']],
    ];
    for (const [action, fields] of aspects) {
      const changed = fields.filter((f) => before[f] !== after[f]);
      if (changed.length === 0) continue;
      const pick = (snapshot: Record<string, unknown>) => Object.fromEntries(changed.map((f) => [f, snapshot[f]]));
      await this.deps.audit.record(
        actor,
        {
          action,
          targetType: 'user',
          targetId: user.id,
          organizationId: user.organizationId,
          before: pick(before),
          after: pick(after),
        },
        transaction,
      );
    }
  }

  private async assertEmailFree(email: string, transaction: Transaction, exceptUserId?: string): Promise<void> {
    const sameAddress = Sequelize.where(Sequelize.fn('lower', Sequelize.col('email')), email.trim().toLowerCase());
    const taken = await User.count({
      where: exceptUserId ? { [Op.and]: [sameAddress, { id: { [Op.ne]: exceptUserId } }] } : sameAddress,
      transaction,
    });
    if (taken > 0) throw emailTaken(email);
  }

  /**
   * Everyone but a platform admin belongs to an existing organization; a platform admin to none, and
   * acts in one by naming it (Guildhall-Organization). Placed in one, the organization scoped their
   * requests without the header and its suspension locked them out of the Admin API.
   */
  private async assertPlacement(role: Role, organizationId: string | null, transaction: Transaction): Promise<void> {
    if (role === 'ROLE_PLATFORM_ADMIN') {
      if (organizationId)
        throw errors.validation([
          {
            field: 'organizationId',
            message: 'must be null for ROLE_PLATFORM_ADMIN: a platform admin names the organization per request',
          },
        ]);
      return;
    }
    if (!organizationId) throw errors.validation([{ field: 'organizationId', message: `is required for ${role}` }]);
    if (!(await Organization.findByPk(organizationId, { transaction })))
      throw errors.unprocessable(`Organization ${organizationId} does not exist`);
  }

  /** Two concurrent requests for one address: the unique index decides, and the loser gets the same answer. */
  private async withEmailUniqueness<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof UniqueConstraintError) throw emailTaken();
      throw error;
    }
  }
}

const emailTaken = (email?: string) =>
  new AppError(
    'email_taken',
    email ? `The e-mail address ${email} is already in use` : 'The e-mail address is already in use',
    { errors: [{ field: 'email', message: 'is already in use' }] },
  );

function changesOf(
  user: User,
  input: UpdateUserInput,
): Partial<Pick<User, 'firstName' | 'lastName' | 'email' | 'phone' | 'role' | 'organizationId' | 'status'>> {
  const changes: Record<string, unknown> = {};
  for (const field of ['firstName', 'lastName', 'phone', 'role', 'organizationId', 'status'] as const) {
    if (input[field] !== undefined && input[field] !== user[field]) changes[field] = input[field];
  }
  if (input.email !== undefined && input.email.trim() !== user.email) changes.email = input.email.trim();
  return changes;
}
