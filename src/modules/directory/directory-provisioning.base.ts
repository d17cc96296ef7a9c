// What directory provisioning's two halves share (users: directory-user-provisioning.ts; groups:
// directory-group-provisioning.ts): the rows they read and write, and how a change is written (one
// transaction, a unique index's refusal as "not available", an audit entry with the directory as actor).
import type { Sequelize, Transaction } from 'sequelize';
import { directoryActor } from '../../shared/access/actor.ts';
import { highestMappedRole } from '../../shared/access/roles.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError } from '../../shared/errors.ts';
import type { Sql } from '../../shared/sql.ts';
import { AUDIT_COLUMNS, type AuditService, auditValues } from '../audit/index.ts';
import type { MailService } from '../mail/index.ts';
import type { MemberAccounts } from '../members/index.ts';
import type { Directory, DirectoryRole } from './directory.model.ts';

export interface DirectoryUserInput {
  externalId: string | null;
  userName: string;
  givenName: string | null;
  familyName: string | null;
  /** The work (or primary) e-mail; userName when it is an address and none is given. */
  email: string | null;
  active: boolean;
  department: string | null;
  jobTitle: string | null;
  /** The resource as the directory wrote it (SCIM's JSON), returned as is on reads. */
  resource: Record<string, unknown>;
}

export interface DirectoryUserRow {
  id: string;
  directoryId: string;
  organizationId: string;
  userId: string | null;
  externalId: string | null;
  userName: string;
  givenName: string | null;
  familyName: string | null;
  email: string | null;
  active: boolean;
  resource: Record<string, unknown>;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export type DirectoryUserWithGroups = DirectoryUserRow & { groups: Array<{ id: string; displayName: string }> };

/** A replacement, or how to compute it from the current row (read under its lock, as a PATCH needs). */
export type DirectoryUserChange = DirectoryUserInput | ((current: DirectoryUserRow) => DirectoryUserInput);

export interface DirectoryGroupInput {
  externalId: string | null;
  displayName: string;
}

export interface DirectoryGroupRow {
  id: string;
  directoryId: string;
  organizationId: string;
  externalId: string | null;
  displayName: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface DirectoryProvisioningDeps {
  sequelize: Sequelize;
  sql: Sql;
  clock: Clock;
  audit: AuditService;
  mail: Pick<MailService, 'send'>;
  memberAccounts: Pick<MemberAccounts, 'link' | 'linkNew' | 'newAccountLink'>;
  loginUrlOf: (organizationId: string) => Promise<string>;
}

export const USER_COLUMNS = `id, directory_id AS "directoryId", organization_id AS "organizationId",
  user_id AS "userId", external_id AS "externalId", user_name AS "userName", given_name AS "givenName",
  family_name AS "familyName", email, active, resource, version, created_at AS "createdAt", updated_at AS "updatedAt"`;
/** The groups (id and name) of the directory user of the statement's `directory_users` row. */
export const USER_GROUPS = `COALESCE((
  SELECT json_agg(json_build_object('id', g.id, 'displayName', g.display_name) ORDER BY g.display_name)
    FROM directory_group_members m JOIN directory_groups g ON g.id = m.group_id
   WHERE m.directory_user_id = directory_users.id), '[]') AS groups`;
export const GROUP_COLUMNS = `id, directory_id AS "directoryId", organization_id AS "organizationId",
  external_id AS "externalId", display_name AS "displayName", version, created_at AS "createdAt",
  updated_at AS "updatedAt"`;

/** The one answer for an address already in use, here or in another organization (nothing revealed). */
export const notAvailable = (what = 'userName or e-mail address') =>
  new AppError('already_exists', `${what} is not available`);

export const isUniqueViolation = (error: unknown) =>
  (error as { parent?: { code?: string }; original?: { code?: string } })?.parent?.code === '23505' ||
  (error as { code?: string })?.code === '23505';

/** The highest role of the groups a person is in, by the directory's mapping; none mapped: the default. */
export function directoryRoleFor(directory: Directory, groupNames: readonly string[]): DirectoryRole {
  return highestMappedRole(directory.groupRoles, groupNames, directory.defaultRole);
}

function auditRecord(directory: Directory, action: string, userId: string | null, after: Record<string, unknown>) {
  return {
    action,
    targetType: userId ? 'user' : 'directory',
    targetId: userId ?? directory.id,
    organizationId: directory.organizationId,
    after: { directoryId: directory.id, ...after },
  };
}

/** Writes of a directory: one transaction each, audited with the directory as the actor. */
export abstract class DirectoryWrites {
  constructor(protected readonly deps: DirectoryProvisioningDeps) {}

  protected record(
    directory: Directory,
    action: string,
    userId: string | null,
    after: Record<string, unknown>,
    transaction: Transaction,
  ): Promise<void> {
    return this.deps.audit.record(
      directoryActor(directory.id, directory.organizationId),
      auditRecord(directory, action, userId, after),
      transaction,
    );
  }

  /**
   * The entry record() writes, as SQL for a statement of the caller's: `INSERT INTO audit_log ... SELECT
   * $first, ... FROM <from>` (written once per row of `from`), and its values (parameters $first on).
   */
  protected recordIn(
    from: string,
    first: number,
    directory: Directory,
    action: string,
    userId: string | null,
    after: Record<string, unknown>,
  ): { sql: string; values: unknown[] } {
    const values = auditValues(
      directoryActor(directory.id, directory.organizationId),
      auditRecord(directory, action, userId, after),
    );
    const params = values.map((_, i) => `$${first + i}`).join(', ');
    return { sql: `INSERT INTO audit_log (${AUDIT_COLUMNS}) SELECT ${params} FROM ${from}`, values };
  }

  /** A transaction in which a unique index refusing a write is SCIM's "uniqueness" (409) about `what`. */
  protected write<T>(what: string, work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.deps.sequelize.transaction(async (transaction) => {
      try {
        return await work(transaction);
      } catch (error) {
        if (isUniqueViolation(error)) throw notAvailable(what);
        throw error;
      }
    });
  }

  protected inTransaction(
    transaction: Transaction | undefined,
    work: (transaction: Transaction) => Promise<void>,
  ): Promise<void> {
    return transaction ? work(transaction) : this.write('members', work);
  }
}
