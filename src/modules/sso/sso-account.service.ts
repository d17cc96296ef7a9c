// Who an SSO profile signs in as. The profile's e-mail must be in one of the connection's domains (and
// match Google's hosted domain when it is sent); the account is found by the IdP's id for the person,
// then by e-mail, inside the connection's organization only: an account of another organization (or a
// platform admin) is never signed in or taken over. New accounts are created active without a password;
// one found by the IdP's id takes the names and e-mail the IdP sends now (not an address in use).
// Groups map to roles through the connection's table, the highest wins, none → the connection's default;
// when the IdP could not send groups (Entra's overage) an existing role is kept. SSO never grants
// ROLE_PLATFORM_ADMIN (the table cannot name it) and leaves sponsor roles as they are.
// A member who arrives by SSO is linked to the organization's member record with that e-mail, or one
// is created (active, basic tier) when the connection says so.
import { Sequelize, type Transaction } from 'sequelize';
import type { Actor } from '../../shared/access/actor.ts';
import { highestMappedRole, isProvisionedRole, type Role } from '../../shared/access/roles.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError } from '../../shared/errors.ts';
import type { AuditService } from '../audit/index.ts';
import type { MemberAccounts } from '../members/index.ts';
import type { MailService } from '../mail/index.ts';
import { Organization } from '../organizations/index.ts';
import { User } from '../users/index.ts';
import type { SsoProfile } from './sso-claims.ts';
import type { SsoConnection, SsoRole } from './sso-connection.model.ts';

export interface SsoAccountDeps {
  sequelize: Sequelize;
  clock: Clock;
  audit: AuditService;
  memberAccounts: Pick<MemberAccounts, 'link'>;
  mail: Pick<MailService, 'send'>;
  /** Where a connection's sign-in starts (the welcome e-mail's link). */
  loginUrlOf: (connectionId: string) => string;
}

const refused = (detail: string) => new AppError('sso_login_failed', detail);

/**
 * A refusal whose reason is for the audit trail only: an address of another organization and an
 * unusable account get the same words, so a login reveals nothing about other tenants (docs/access.md).
 */
export class AccountNotAvailable extends AppError {
  constructor(readonly auditNote: Record<string, unknown>) {
    super('sso_login_failed', 'This account cannot sign in through this connection; ask your administrator');
  }
}

export function roleFor(connection: SsoConnection, groups: string[]): SsoRole {
  return highestMappedRole(connection.groupRoles, groups, connection.defaultRole);
}

export const actorForUser = (user: User): Actor => ({
  type: 'user',
  id: user.id,
  organizationId: user.organizationId,
  role: user.role,
  mfaVerified: false,
});

export class SsoAccountService {
  constructor(private readonly deps: SsoAccountDeps) {}

  /** The user this profile signs in as, created or brought up to date. */
  async signIn(connection: SsoConnection, profile: SsoProfile): Promise<{ user: User; created: boolean }> {
    this.checkIdentity(connection, profile);
    const organization = await Organization.findByPk(connection.organizationId, { attributes: ['status'] });
    if (organization?.status !== 'active')
      throw new AppError('invalid_connection', "The connection's organization is suspended");
    const { user, created } = await this.deps.sequelize.transaction((transaction) =>
      this.upsertUser(connection, profile, transaction),
    );
    if (user.role === 'ROLE_MEMBER') await this.deps.memberAccounts.link(user, { create: connection.createMembers });
    return { user, created };
  }

  private checkIdentity(connection: SsoConnection, profile: SsoProfile): void {
    if (!profile.email.includes('@')) throw refused('The identity provider sent no e-mail address');
    if (!profile.emailVerified) throw refused('The identity provider says the e-mail address is not verified');
    if (!profile.firstName || !profile.lastName)
      throw refused('The identity provider sent no given name or family name (both are required)');
    const domain = profile.email.split('@').pop()!;
    if (!connection.domains.includes(domain))
      throw refused(`${domain} is not a domain of this organization's SSO connection`);
    if (profile.hostedDomain && profile.hostedDomain.toLowerCase() !== domain)
      throw refused('The e-mail is not in the Google Workspace domain that signed it');
  }

  private async upsertUser(
    connection: SsoConnection,
    profile: SsoProfile,
    transaction: Transaction,
  ): Promise<{ user: User; created: boolean }> {
    const { clock, audit } = this.deps;
    const existing =
      (await User.findOne({
        where: { ssoConnectionId: connection.id, ssoSubject: profile.subject },
        transaction,
        lock: transaction.LOCK.UPDATE,
      })) ??
      (await User.findOne({
        where: Sequelize.where(Sequelize.fn('lower', Sequelize.col('email')), profile.email),
        transaction,
        lock: transaction.LOCK.UPDATE,
      }));
    if (existing && existing.organizationId !== connection.organizationId)
      throw new AccountNotAvailable({
        reason: 'the address belongs to an account of another organization',
        userId: existing.id,
        accountOrganizationId: existing.organizationId,
      });
    if (existing && existing.status !== 'active')
      throw new AccountNotAvailable({ reason: `the account is ${existing.status}`, userId: existing.id });

    const attributes = {
      firstName: profile.firstName!,
      lastName: profile.lastName!,
      department: profile.department,
      jobTitle: profile.jobTitle,
      ssoConnectionId: connection.id,
      ssoSubject: profile.subject,
      lastLoginAt: clock.now(),
    };
    if (existing) {
      const before = {
        role: existing.role,
        firstName: existing.firstName,
        lastName: existing.lastName,
        email: existing.email,
      };
      const directoryManaged = existing.directoryId !== null;
      const role = this.nextRole(connection, profile, existing.role, directoryManaged);
      // a directory (SCIM) is the source of its people's profile: the sign-in records only itself
      const { firstName, lastName, department, jobTitle, ...signIn } = attributes;
      const profileFields = directoryManaged
        ? {}
        : { firstName, lastName, department, jobTitle, ...(await this.newAddress(existing, profile, transaction)) };
      await existing.update({ ...signIn, ...profileFields, role }, { transaction });
      const after = { role, firstName: existing.firstName, lastName: existing.lastName, email: existing.email };
      if ((Object.keys(after) as Array<keyof typeof after>).some((key) => after[key] !== before[key]))
        await audit.record(
          actorForUser(existing),
          {
            action: 'sso.user_updated',
            targetType: 'user',
            targetId: existing.id,
            before,
            after: { ...after, connectionId: connection.id },
          },
          transaction,
        );
      return { user: existing, created: false };
    }
    const user = await User.create(
      {
        ...attributes,
        organizationId: connection.organizationId,
        email: profile.email,
        role: profile.groups ? roleFor(connection, profile.groups) : connection.defaultRole,
        status: 'active',
      },
      { transaction },
    );
    await audit.record(
      actorForUser(user),
      {
        action: 'sso.user_provisioned',
        targetType: 'user',
        targetId: user.id,
        after: { email: user.email, role: user.role, connectionId: connection.id },
      },
      transaction,
    );
    // the spec's welcome e-mail on user creation, saying how this account signs in
    await this.deps.mail.send(
      { address: user.email, userId: user.id },
      {
        template: 'welcome',
        data: {
          firstName: user.firstName,
          email: user.email,
          loginUrl: this.deps.loginUrlOf(connection.id),
          pending: false,
          ssoConnection: connection.name,
        },
      },
      transaction,
    );
    return { user, created: true };
  }

  /**
   * The IdP's new address for a person it already signs in (found by its subject): theirs from now
   * on, as their names are, unless another account uses it (then the account keeps its address).
   */
  private async newAddress(user: User, profile: SsoProfile, transaction: Transaction): Promise<{ email?: string }> {
    if (user.email.toLowerCase() === profile.email) return {};
    const taken = await User.count({
      where: Sequelize.where(Sequelize.fn('lower', Sequelize.col('email')), profile.email),
      transaction,
    });
    return taken > 0 ? {} : { email: profile.email };
  }

  /** Groups decide the role of SSO roles only; without groups (overage) the role stays. */
  private nextRole(connection: SsoConnection, profile: SsoProfile, current: Role, directoryManaged: boolean): Role {
    if (!isProvisionedRole(current)) return current;
    // a directory (SCIM) decides the roles of the people it provisions, not the sign-in
    if (directoryManaged) return current;
    if (profile.groups === null) return current;
    return roleFor(connection, profile.groups);
  }
}
