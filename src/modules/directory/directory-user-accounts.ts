// The Guildhall account behind a directory user (directory-user-provisioning.ts writes the directory
// users): what an account takes from its directory user, finding or creating it (never another
// organization's), changing it through its model (whose hooks drop what the credential caches hold),
// its member record's link and the welcome e-mail. Shared by the create, replace and delete paths.
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import type { Role } from '../../shared/access/roles.ts';
import { errors } from '../../shared/errors.ts';
import { linkedMemberSql } from '../members/index.ts';
import { isEmailAddress, User, type UserStatus } from '../users/index.ts';
import type { Directory } from './directory.model.ts';
import {
  type DirectoryUserInput,
  type DirectoryUserRow,
  DirectoryWrites,
  isUniqueViolation,
  notAvailable,
  USER_COLUMNS,
} from './directory-provisioning.base.ts';

/** What provisioning reads and writes of a directory user's account. */
export interface Account {
  id: string;
  organizationId: string | null;
  directoryId: string | null;
  role: string;
  email: string;
  firstName: string;
  lastName: string;
  status: UserStatus;
  department: string | null;
  jobTitle: string | null;
}

/** What an account takes from its directory user (profileOf), and the column of each. */
export const ACCOUNT_PROFILE = ['firstName', 'lastName', 'email', 'status', 'department', 'jobTitle'] as const;
export const ACCOUNT_COLUMN: Record<(typeof ACCOUNT_PROFILE)[number], string> = {
  firstName: 'first_name',
  lastName: 'last_name',
  email: 'email',
  status: 'status',
  department: 'department',
  jobTitle: 'job_title',
};

/** What the members service's link finds of the member record of `d.account` (a row of replaceAtVersion's read). */
export const ACCOUNT_MEMBER = linkedMemberSql(
  `(d.account->>'organizationId')::uuid`,
  `(d.account->>'id')::uuid`,
  `d.account->>'email'`,
);

/** The User model's afterSave hooks for an update written as plain SQL (Sequelize's Model.runHooks). */
export const runAfterSave = (user: User) =>
  (User as unknown as { runHooks(hook: string, ...args: unknown[]): Promise<void> }).runHooks('afterSave', user, {
    transaction: null,
  });

export const ACCOUNT_COLUMNS = `id, organization_id AS "organizationId", directory_id AS "directoryId", role, email,
  first_name AS "firstName", last_name AS "lastName", status, department, job_title AS "jobTitle"`;

function emailOf(input: DirectoryUserInput): string | null {
  const email = input.email ?? (input.userName.includes('@') ? input.userName : null);
  return email?.trim().toLowerCase() || null;
}

/** A directory user's stored fields, in the order of its INSERT and UPDATE: external_id to resource. */
export const storedFields = (input: DirectoryUserInput): unknown[] => [
  input.externalId,
  input.userName,
  input.givenName,
  input.familyName,
  emailOf(input),
  input.active,
  input.resource,
];

/** What an account holds of its directory user; a work e-mail is required, and must be one (it is the login). */
export function profileOf(input: DirectoryUserInput) {
  const email = emailOf(input);
  if (!email)
    throw errors.validation([{ field: 'emails', message: 'a work e-mail (or a userName that is one) is required' }]);
  if (!isEmailAddress(email)) throw errors.validation([{ field: 'emails', message: 'must be an e-mail address' }]);
  const names = { firstName: input.givenName || email.split('@')[0]!, lastName: input.familyName || '-' };
  const status: UserStatus = input.active ? 'active' : 'inactive';
  return { ...names, email, status, department: input.department, jobTitle: input.jobTitle };
}

/** The account side of a directory user's writes (see the file's header). */
export abstract class DirectoryUserAccounts extends DirectoryWrites {
  /**
   * The account a directory user manages: the one it already manages, or the organization's account with
   * its e-mail, or a new one. An address used by an account of another organization (or managed by
   * another directory) is "not available". Read and inserted as plain SQL (this is every provisioning
   * request's hot path); a change to an existing account goes through the model, whose hooks drop what
   * the credential caches hold of it (a deactivation must reach its tokens within the bound).
   */
  protected async accountFor(
    directory: Directory,
    input: DirectoryUserInput,
    current: { id: string; userId: string | null; account: Account | null } | null,
    transaction: Transaction,
  ): Promise<{ account: Account; created: boolean }> {
    const profile = profileOf(input);
    const { email, status } = profile;
    const own = current?.account ?? null;
    // the address unchanged is the managed account's own, locked with its directory user already
    const byEmail =
      own?.email.toLowerCase() === email ? own : await this.lockAccount('lower(email) = $1', email, transaction);
    if (current?.userId) {
      if (byEmail && byEmail.id !== current.userId) throw notAvailable();
      const account = byEmail ?? own;
      if (account) return { account: await this.updateAccount(account, profile, transaction), created: false };
    }
    if (byEmail) {
      const managedElsewhere = byEmail.directoryId !== null && byEmail.directoryId !== directory.id;
      if (byEmail.organizationId !== directory.organizationId || managedElsewhere) throw notAvailable();
      // another user of this directory manages it already: a second one would take it over (its name,
      // and its deactivation on the other's delete)
      if (
        byEmail.directoryId === directory.id &&
        (await this.managedByAnother(directory, byEmail.id, current, transaction))
      )
        throw notAvailable();
      const account = await this.updateAccount(byEmail, { ...profile, directoryId: directory.id }, transaction);
      return { account, created: false };
    }
    try {
      // the columns and values User.create writes (no hook of the model reacts to a new account)
      const now = new Date();
      const account = await this.deps.sql.one<Account>(
        `INSERT INTO users (id, organization_id, first_name, last_name, email, role, status, department, job_title,
           directory_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING ${ACCOUNT_COLUMNS}`,
        [
          randomUUID(),
          directory.organizationId,
          profile.firstName,
          profile.lastName,
          email,
          directory.defaultRole as Role,
          status,
          input.department,
          input.jobTitle,
          directory.id,
          now,
        ],
        transaction,
      );
      return { account: account!, created: true };
    } catch (error) {
      if (isUniqueViolation(error)) throw notAvailable();
      throw error;
    }
  }

  private async managedByAnother(
    directory: Directory,
    accountId: string,
    current: { id: string } | null,
    transaction: Transaction,
  ): Promise<boolean> {
    const row = await this.deps.sql.one(
      `SELECT 1 AS managed FROM directory_users
        WHERE directory_id = $1 AND user_id = $2 AND id IS DISTINCT FROM $3::uuid LIMIT 1`,
      [directory.id, accountId, current?.id ?? null],
      transaction,
    );
    return row !== undefined;
  }

  protected lockAccount(where: string, value: string, transaction: Transaction): Promise<Account | undefined> {
    return this.deps.sql.one<Account>(
      `SELECT ${ACCOUNT_COLUMNS} FROM users WHERE ${where} AND deleted_at IS NULL LIMIT 1 FOR UPDATE`,
      [value],
      transaction,
    );
  }

  /** Through the model (only what changed is written; its hooks see the change). */
  protected async updateAccount(
    account: Account,
    changes: Partial<Omit<Account, 'id' | 'organizationId' | 'role'>>,
    transaction: Transaction,
  ): Promise<Account> {
    const user = User.build(account as never, { isNewRecord: false, raw: true });
    await user.update(changes, { transaction });
    return { ...account, ...changes };
  }

  /** The directory user and the account it manages (null: none, or deleted), both locked, in one statement. */
  protected async lockUserAndAccount(
    directory: Directory,
    id: string,
    transaction: Transaction,
  ): Promise<DirectoryUserRow & { account: Account | null }> {
    const row = await this.deps.sql.one<DirectoryUserRow & { account: Account | null }>(
      `SELECT ${USER_COLUMNS},
              (SELECT to_jsonb(a) FROM (SELECT ${ACCOUNT_COLUMNS} FROM users
                 WHERE users.id = directory_users.user_id AND deleted_at IS NULL FOR UPDATE) a) AS account
         FROM directory_users WHERE directory_id = $1 AND id = $2 FOR UPDATE`,
      [directory.id, id],
      transaction,
    );
    if (!row) throw errors.notFound('User', id);
    return row;
  }

  protected async lockUser(directory: Directory, id: string, transaction: Transaction): Promise<DirectoryUserRow> {
    const row = await this.deps.sql.one<DirectoryUserRow>(
      `SELECT ${USER_COLUMNS} FROM directory_users WHERE directory_id = $1 AND id = $2 FOR UPDATE`,
      [directory.id, id],
      transaction,
    );
    if (!row) throw errors.notFound('User', id);
    return row;
  }

  /** In the provisioning's transaction: the member record commits (or not) with the account. */
  protected async linkMember(account: Account, active: boolean, transaction: Transaction): Promise<void> {
    if (account.role !== 'ROLE_MEMBER') return;
    await this.deps.memberAccounts.link(account, { create: active, status: active ? 'active' : 'lapsed' }, transaction);
  }

  protected async welcome(
    directory: Directory,
    account: Account,
    loginUrl: string,
    transaction: Transaction,
  ): Promise<void> {
    await this.deps.mail.send(
      { address: account.email, userId: account.id },
      {
        template: 'welcome',
        data: {
          firstName: account.firstName,
          email: account.email,
          loginUrl,
          pending: false,
          // never a password link: the directory's people sign in with their organization's account
          ssoConnection: directory.name,
        },
      },
      transaction,
    );
  }
}
