// A member who has an account (signed in by SSO, provisioned by a directory) is linked to the
// organization's member record with the same e-mail, or one is created, through the members service
// so that member.created / member.updated are announced like any other change.
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { systemActor } from '../../shared/access/actor.ts';
import { DOMAIN_EVENT_COLUMNS, type DomainEvents, eventValues } from '../../shared/domain-events/domain-events.ts';
import type { Sql } from '../../shared/sql.ts';
import { AUDIT_COLUMNS, auditValues } from '../audit/index.ts';
import type { CrudService } from '../crud/index.ts';
import { type MemberInput, toMemberDto } from './member.mapper.ts';
import { Member, type MemberStatus } from './member.model.ts';

export interface MemberAccount {
  id: string;
  organizationId: string | null;
  firstName: string;
  lastName: string;
  email: string;
}

/** What link() would find of an account's member record (linkedMemberSql): its link and status. */
export interface LinkedMember {
  userId: string | null;
  status: MemberStatus;
}

/**
 * SQL (a scalar subquery) for the member record link() finds for the account whose organization, id
 * and e-mail are these SQL expressions, as a LinkedMember object (null: none): for a caller that reads
 * it in a statement of its own and then asks linkIsCurrent() whether link() would change anything.
 */
export function linkedMemberSql(organizationId: string, userId: string, email: string): string {
  return `(SELECT json_build_object('userId', m.user_id, 'status', m.status) FROM members m
     WHERE m.organization_id = ${organizationId} AND ${linkable('m', userId, email)}
     ORDER BY (m.user_id IS NOT DISTINCT FROM ${userId}) DESC LIMIT 1)`;
}

/**
 * Which member records an account links to (SQL over the members alias `m`): its own, or one with its
 * address whose account is gone (none, or deleted: a directory's hard delete keeps the cancelled record,
 * and the person provisioned again gets it back instead of a refusal that the address is taken).
 */
function linkable(m: string, userId: string, email: string): string {
  return `(${m}.user_id = ${userId} OR (lower(${m}.email) = lower(${email}) AND (${m}.user_id IS NULL OR EXISTS
    (SELECT 1 FROM users gone WHERE gone.id = ${m}.user_id AND gone.deleted_at IS NOT NULL))))`;
}

/** Whether link(account, options) would write nothing, given what linkedMemberSql found. */
export function linkIsCurrent(
  found: LinkedMember | null,
  userId: string,
  options: { create: boolean; status: MemberStatus },
): boolean {
  if (!found) return !options.create;
  return found.userId === userId && found.status === options.status;
}

/** What linkNew's single statement writes with (the members service's audit trail and events). */
export interface MemberAccountsDeps {
  sql: Sql;
  publisher: Pick<DomainEvents, 'prepare' | 'subscribersWithWork' | 'fanOut'>;
}

/** What newAccountLink's statement found: whether it wrote the record, and which subscribers have work. */
export interface NewAccountLinkResult {
  written: boolean;
  withWork: string[];
}

export class MemberAccounts {
  constructor(
    private readonly members: Pick<CrudService<Member, never, MemberInput>, 'create' | 'replace'>,
    private readonly deps: MemberAccountsDeps,
  ) {}

  /**
   * link(user, { create: true, status }) for an account created in `transaction` (no member record can
   * be linked to it yet): see newAccountLink, here as a statement of its own.
   */
  async linkNew(user: MemberAccount, status: MemberStatus, transaction: Transaction): Promise<void> {
    const link = this.newAccountLink(user, status, 1);
    if (!link) return this.link(user, { create: true, status }, transaction);
    const row = await this.deps.sql.one<{ result: NewAccountLinkResult }>(
      `WITH ${link.ctes} SELECT ${link.result} AS result`,
      link.values,
      transaction,
    );
    await link.finish(row!.result, transaction);
  }

  /**
   * link(user, { create: true, status }) for an account created in the same transaction (no member
   * record can be linked to it yet), as CTEs for a statement (the caller's, after its own CTEs, with
   * `link.values` as its parameters from `first` on); then `finish` with the statement's `written`, in
   * its transaction. The usual case, no member record with the address, is written by the statement:
   * the record as the members service creates it (the same attributes; the account of the record's
   * organization: `accountFrom`, the caller's CTE that inserted it, or else the users table says so),
   * its member.created audit entry and its member.created event, whose subscribers `finish` runs as the
   * service's publish() does, skipping those the statement found nothing to write for. Anything else (a
   * record to link, a unique index refusing) is not written by the statement, and `finish` goes through
   * link(), as before. `result` is the statement's expression to hand to `finish`. SCIM provisioning's
   * hot path (docs/performance.md#scim). Undefined when it cannot be one statement here (no organization).
   */
  newAccountLink(
    user: MemberAccount,
    status: MemberStatus,
    first: number,
    accountFrom?: string,
  ):
    | {
        ctes: string;
        result: string;
        values: unknown[];
        finish(result: NewAccountLinkResult, t: Transaction): Promise<void>;
      }
    | undefined {
    const organizationId = user.organizationId;
    if (!organizationId) return undefined;
    const { publisher } = this.deps;
    const now = new Date();
    const attributes = {
      id: randomUUID(),
      organizationId,
      firstName: user.firstName,
      lastName: user.lastName,
      email: user.email,
      phone: null,
      tier: 'member' as const,
      membershipType: null,
      status,
      joinedAt: null,
      renewalDate: null,
      userId: user.id,
      customFields: {},
      createdAt: now,
      updatedAt: now,
    };
    const after = toMemberDto(attributes);
    const actor = systemActor(organizationId);
    const event = publisher.prepare(actor, 'member.created', after);
    const values = [
      attributes.id,
      organizationId,
      attributes.firstName,
      attributes.lastName,
      attributes.email,
      attributes.phone,
      attributes.tier,
      attributes.membershipType,
      status,
      attributes.joinedAt,
      attributes.renewalDate,
      user.id,
      JSON.stringify(attributes.customFields),
      now,
      ...auditValues(actor, { action: 'member.created', targetType: 'member', targetId: attributes.id, after }),
      ...eventValues(event),
    ];
    const $ = (n: number) => `$${first + n - 1}`;
    const withWork = publisher.subscribersWithWork(event, (value) => {
      values.push(value);
      return $(values.length);
    });
    const list = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => $(from + i)).join(', ');
    const accountOfOrganization = accountFrom
      ? `EXISTS (SELECT 1 FROM ${accountFrom})`
      : `EXISTS (SELECT 1 FROM users WHERE id = ${$(12)} AND organization_id = ${$(2)} AND deleted_at IS NULL)`;
    const ctes = `member_candidate AS (
         SELECT 1 FROM members m WHERE m.organization_id = ${$(2)} AND ${linkable('m', $(12), $(5))} LIMIT 1),
       member_created AS (
         INSERT INTO members (id, organization_id, first_name, last_name, email, phone, tier, membership_type, status,
           joined_at, renewal_date, user_id, custom_fields, created_at, updated_at)
         SELECT ${list(1, 14)}, ${$(14)}
          WHERE NOT EXISTS (SELECT 1 FROM member_candidate) AND ${accountOfOrganization}
         ON CONFLICT DO NOTHING RETURNING id),
       member_audit AS (
         INSERT INTO audit_log (${AUDIT_COLUMNS}) SELECT ${list(15, 25)} FROM member_created),
       member_event AS (
         INSERT INTO domain_events (${DOMAIN_EVENT_COLUMNS}) SELECT ${list(26, 32)} FROM member_created)`;
    return {
      ctes,
      result: `json_build_object('written', EXISTS (SELECT 1 FROM member_created), 'withWork', ${withWork})`,
      values,
      finish: ({ written, withWork }, transaction) =>
        written
          ? publisher.fanOut(event, transaction, withWork)
          : this.link(user, { create: true, status }, transaction),
    };
  }

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
    const found = await this.deps.sql.one<{ id: string }>(
      `SELECT m.id FROM members m WHERE m.organization_id = $1 AND ${linkable('m', '$2::uuid', '$3')}
        ORDER BY (m.user_id IS NOT DISTINCT FROM $2::uuid) DESC LIMIT 1`,
      [organizationId, user.id, user.email],
      transaction,
    );
    const member = found ? await Member.findByPk(found.id, { transaction }) : null;
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
