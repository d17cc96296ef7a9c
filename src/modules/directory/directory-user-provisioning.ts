// A directory's users and the Guildhall accounts they manage. A directory user is linked to the
// account with its e-mail inside the directory's organization, or one is created (active, no password);
// an account of another organization is never touched (the same "not available" answer as a duplicate,
// docs/access.md). Deactivation deactivates the account at once (its tokens are refused within the
// credential cache's bound) and lapses its member record; deletion deactivates, or deletes the account
// where the directory is configured to. Every change is audited with the directory as the actor. The
// account's side of these writes (finding, creating, changing it; its member record) is
// directory-user-accounts.ts.
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import type { Role } from '../../shared/access/roles.ts';
import { errors } from '../../shared/errors.ts';
import { type LinkedMember, linkIsCurrent, type NewAccountLinkResult } from '../members/index.ts';
import { User } from '../users/index.ts';
import type { Directory } from './directory.model.ts';
import {
  type DirectoryUserChange,
  type DirectoryUserInput,
  type DirectoryUserRow,
  type DirectoryUserWithGroups,
  isUniqueViolation,
  notAvailable,
  USER_COLUMNS,
  USER_GROUPS,
} from './directory-provisioning.base.ts';
import {
  ACCOUNT_COLUMN,
  ACCOUNT_COLUMNS,
  ACCOUNT_MEMBER,
  ACCOUNT_PROFILE,
  type Account,
  DirectoryUserAccounts,
  profileOf,
  runAfterSave,
  storedFields,
} from './directory-user-accounts.ts';

export class DirectoryUserProvisioning extends DirectoryUserAccounts {
  async findUser(directory: Directory, id: string): Promise<DirectoryUserRow | undefined> {
    return this.deps.sql.one<DirectoryUserRow>(
      `SELECT ${USER_COLUMNS} FROM directory_users WHERE directory_id = $1 AND id = $2`,
      [directory.id, id],
    );
  }

  async findUserByExternalId(directory: Directory, externalId: string): Promise<DirectoryUserRow | undefined> {
    return this.deps.sql.one<DirectoryUserRow>(
      `SELECT ${USER_COLUMNS} FROM directory_users WHERE directory_id = $1 AND external_id = $2`,
      [directory.id, externalId],
    );
  }

  /** The groups (id and name) a directory user is in. */
  async groupsOfUser(directoryUserId: string): Promise<Array<{ id: string; displayName: string }>> {
    return this.deps.sql.rows(
      `SELECT g.id, g.display_name AS "displayName" FROM directory_group_members m
         JOIN directory_groups g ON g.id = m.group_id WHERE m.directory_user_id = $1 ORDER BY g.display_name`,
      [directoryUserId],
    );
  }

  async createUser(directory: Directory, input: DirectoryUserInput): Promise<DirectoryUserRow> {
    // read before the transaction: on embedded PGlite a query outside it would wait for its connection
    const loginUrl = directory.sendWelcome ? await this.deps.loginUrlOf(directory.organizationId) : '';
    return this.write('userName or e-mail address', async (transaction) => {
      // a new address: the account, its directory user and the audit entry are written by one statement
      const fresh = await this.insertWithNewAccount(directory, input, transaction);
      const { account, created, row } = fresh ?? (await this.insertForExistingAccount(directory, input, transaction));
      if (!fresh)
        await this.record(
          directory,
          'directory.user_provisioned',
          account.id,
          { userName: input.userName, created },
          transaction,
        );
      if (created && input.active && directory.sendWelcome)
        await this.welcome(directory, account, loginUrl, transaction);
      if (fresh?.linkMember) await fresh.linkMember(transaction);
      else if (created && row.active && account.role === 'ROLE_MEMBER')
        await this.deps.memberAccounts.linkNew(account, 'active', transaction);
      else await this.linkMember(account, row.active, transaction);
      return row;
    });
  }

  /**
   * The usual case of an initial sync, an address no account has: the account, its directory user, the
   * audit entry and (an active member) the member record's part of the members service's link, in one
   * statement; `linkMember` finishes that link in the transaction. Undefined when the address is taken
   * (nothing written): see insertForExistingAccount.
   */
  private async insertWithNewAccount(
    directory: Directory,
    input: DirectoryUserInput,
    transaction: Transaction,
  ): Promise<
    | { account: Account; created: true; row: DirectoryUserRow; linkMember?: (t: Transaction) => Promise<void> }
    | undefined
  > {
    const profile = profileOf(input);
    const now = this.deps.clock.now();
    const accountId = randomUUID();
    const audit = this.recordIn('account', 19, directory, 'directory.user_provisioned', accountId, {
      userName: input.userName,
      created: true,
    });
    const member =
      input.active && directory.defaultRole === 'ROLE_MEMBER'
        ? this.deps.memberAccounts.newAccountLink(
            { id: accountId, organizationId: directory.organizationId, ...profile },
            'active',
            19 + audit.values.length,
            'account',
          )
        : undefined;
    const row = await this.deps.sql.one<
      DirectoryUserRow & { account: Account; memberLink: NewAccountLinkResult | null }
    >(
      `WITH account AS (
         INSERT INTO users (id, organization_id, first_name, last_name, email, role, status, department, job_title,
           directory_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
         ON CONFLICT (lower(email)) WHERE deleted_at IS NULL DO NOTHING
         RETURNING ${ACCOUNT_COLUMNS}),
       directory_users AS (
         INSERT INTO directory_users (directory_id, organization_id, user_id, external_id, user_name, given_name,
           family_name, email, active, resource, created_at, updated_at)
         SELECT $10, $2, account.id, $12, $13, $14, $15, $5, $16, $17, $18, $18 FROM account
         RETURNING ${USER_COLUMNS}),
       audit AS (${audit.sql})${member ? `, ${member.ctes}` : ''}
       SELECT directory_users.*, to_jsonb(account) AS account, ${member?.result ?? 'NULL'} AS "memberLink"
         FROM directory_users, account`,
      [
        // the columns and values User.create wrote (no hook of the model reacts to a new account)
        accountId,
        directory.organizationId,
        profile.firstName,
        profile.lastName,
        profile.email,
        directory.defaultRole as Role,
        profile.status,
        input.department,
        input.jobTitle,
        directory.id,
        new Date(),
        input.externalId,
        input.userName,
        input.givenName,
        input.familyName,
        input.active,
        input.resource,
        now,
        ...audit.values,
        ...(member?.values ?? []),
      ],
      transaction,
    );
    if (!row) return undefined;
    const { account, memberLink, ...directoryUser } = row;
    const linkMember = member && ((t: Transaction) => member.finish(memberLink!, t));
    return { account, created: true, row: directoryUser, linkMember };
  }

  /** An address an account has already: the organization's (adopted) or "not available". */
  private async insertForExistingAccount(
    directory: Directory,
    input: DirectoryUserInput,
    transaction: Transaction,
  ): Promise<{ account: Account; created: boolean; row: DirectoryUserRow }> {
    const { account, created } = await this.accountFor(directory, input, null, transaction);
    const row = await this.deps.sql.one<DirectoryUserRow>(
      `INSERT INTO directory_users (directory_id, organization_id, user_id, external_id, user_name, given_name,
         family_name, email, active, resource, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING ${USER_COLUMNS}`,
      [directory.id, directory.organizationId, account.id, ...storedFields(input), this.deps.clock.now()],
      transaction,
    );
    return { account, created, row: row! };
  }

  /**
   * PUT or PATCH: the row is locked first, so a change computed from it (`change` as a function, which
   * may also refuse it: an ETag that no longer matches) sees what it replaces. Returns the row with its
   * groups, as SCIM renders it.
   */
  async replaceUser(directory: Directory, id: string, change: DirectoryUserChange): Promise<DirectoryUserWithGroups> {
    return (await this.replaceAtVersion(directory, id, change)) ?? this.replaceLocked(directory, id, change);
  }

  /**
   * The usual PATCH or PUT (Entra's and Okta's renames): the same account and address, the same active
   * state, and a member record that link() would leave as it is. One read, then one statement with no
   * transaction around it: the directory user, only the account's columns that change and the audit
   * entry, written only if the directory user is still at the version the change was computed from (the
   * row's lock is taken by that UPDATE; a concurrent change makes it write nothing). Undefined when the
   * change needs more, or lost that race: replaceLocked then does it under the rows' locks, as before.
   */
  private async replaceAtVersion(
    directory: Directory,
    id: string,
    change: DirectoryUserChange,
  ): Promise<DirectoryUserWithGroups | undefined> {
    // prepared once per pooled connection (a fixed text): read on every PATCH of an initial sync
    const current = await this.deps.sql.repeated<
      DirectoryUserRow & { account: Account | null; member: LinkedMember | null }
    >(
      `SELECT d.*, ${ACCOUNT_MEMBER} AS member
         FROM (SELECT ${USER_COLUMNS},
                      (SELECT to_jsonb(a) FROM (SELECT ${ACCOUNT_COLUMNS} FROM users
                         WHERE users.id = directory_users.user_id AND deleted_at IS NULL) a) AS account
                 FROM directory_users WHERE directory_id = $1 AND id = $2) d`,
      [directory.id, id],
    );
    if (!current) throw errors.notFound('User', id);
    const input = typeof change === 'function' ? change(current) : change;
    const account = current.account;
    const profile = profileOf(input);
    if (!account || current.userId !== account.id || account.email.toLowerCase() !== profile.email) return undefined;
    if (current.active !== input.active) return undefined;
    const link = { create: input.active, status: input.active ? ('active' as const) : ('lapsed' as const) };
    if (account.role === 'ROLE_MEMBER' && !linkIsCurrent(current.member, account.id, link)) return undefined;

    // what updateAccount would write: the columns whose value changes (nothing changed: no write, no hook)
    const changes: Partial<Account> = {};
    for (const key of ACCOUNT_PROFILE)
      if ((profile[key] ?? null) !== (account[key] ?? null)) Object.assign(changes, { [key]: profile[key] ?? null });
    const changed = Object.keys(changes) as Array<(typeof ACCOUNT_PROFILE)[number]>;
    const values: unknown[] = [
      directory.id,
      id,
      account.id,
      ...storedFields(input),
      this.deps.clock.now(),
      current.version,
    ];
    let accountUpdate = '';
    if (changed.length) {
      const sets = changed.map((key) => `${ACCOUNT_COLUMN[key]} = $${values.push(changes[key])}`);
      accountUpdate = `, account AS (UPDATE users SET ${sets.join(', ')}, updated_at = $${values.push(new Date())}
          FROM changed WHERE users.id = changed."userId")`;
    }
    const audit = this.recordIn('changed', values.length + 1, directory, 'directory.user_updated', account.id, {
      userName: input.userName,
    });
    let row: DirectoryUserWithGroups | undefined;
    try {
      row = await this.deps.sql.repeated<DirectoryUserWithGroups>(
        `WITH changed AS (
           UPDATE directory_users SET external_id = $4, user_name = $5, given_name = $6, family_name = $7, email = $8,
             active = $9, resource = $10, version = version + 1, updated_at = $11
            WHERE directory_id = $1 AND id = $2 AND version = $12 AND user_id = $3
           RETURNING ${USER_COLUMNS}, ${USER_GROUPS})${accountUpdate},
         audit AS (${audit.sql})
         SELECT * FROM changed`,
        [...values, ...audit.values],
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw notAvailable();
      throw error;
    }
    if (!row) return undefined;
    // the account's hooks, as its model's update runs them (the credential caches drop what they hold of it)
    if (changed.length) {
      const user = User.build({ ...account, ...changes } as never, { isNewRecord: false, raw: true });
      await runAfterSave(user);
    }
    return row;
  }

  private replaceLocked(
    directory: Directory,
    id: string,
    change: DirectoryUserChange,
  ): Promise<DirectoryUserWithGroups> {
    return this.write('userName or e-mail address', async (transaction) => {
      const current = await this.lockUserAndAccount(directory, id, transaction);
      const input = typeof change === 'function' ? change(current) : change;
      const { account } = await this.accountFor(directory, input, current, transaction);
      const row = await this.deps.sql.one<DirectoryUserWithGroups>(
        `UPDATE directory_users SET user_id = $3, external_id = $4, user_name = $5, given_name = $6, family_name = $7,
           email = $8, active = $9, resource = $10, version = version + 1, updated_at = $11
         WHERE directory_id = $1 AND id = $2 RETURNING ${USER_COLUMNS}, ${USER_GROUPS}`,
        [directory.id, id, account.id, ...storedFields(input), this.deps.clock.now()],
        transaction,
      );
      const statusChanged = current.active !== input.active;
      if (statusChanged)
        await this.record(
          directory,
          input.active ? 'directory.user_reactivated' : 'directory.user_deactivated',
          account.id,
          { userName: input.userName },
          transaction,
        );
      else
        await this.record(directory, 'directory.user_updated', account.id, { userName: input.userName }, transaction);
      if (statusChanged || account.role === 'ROLE_MEMBER') await this.linkMember(account, row!.active, transaction);
      return row!;
    });
  }

  /** SCIM DELETE: the resource goes; the account is deactivated, or deleted where the directory says so. */
  async deleteUser(directory: Directory, id: string, check?: (current: DirectoryUserRow) => void): Promise<void> {
    await this.write('userName or e-mail address', async (transaction) => {
      const current = await this.lockUser(directory, id, transaction);
      check?.(current);
      await this.deps.sql.query('DELETE FROM directory_users WHERE id = $1', [id], transaction);
      const user = current.userId
        ? await User.findByPk(current.userId, { transaction, lock: transaction.LOCK.UPDATE })
        : null;
      if (!user) return;
      await user.update(
        { status: 'inactive', ...(directory.hardDelete ? { directoryId: null } : {}) },
        { transaction },
      );
      // before the deletion: the member record's link must name a live user of the organization
      await this.deps.memberAccounts.link(user, { create: false, status: 'cancelled' }, transaction);
      if (directory.hardDelete) {
        await user.destroy({ transaction });
        await this.record(directory, 'directory.user_deleted', user.id, { userName: current.userName }, transaction);
      } else {
        await this.record(
          directory,
          'directory.user_deactivated',
          user.id,
          { userName: current.userName, deletedInDirectory: true },
          transaction,
        );
      }
    });
  }
}
