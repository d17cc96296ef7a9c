// "Require SSO" for an organization (issue decision, docs/sso.md): when on, its users' password
// logins are refused with 403 sso_required, except the one break-glass client admin it names, who
// keeps a password (and should keep MFA) for the day the IdP is down. Turning it on needs an active
// connection, so nobody is locked out by a policy with no way in. Tokens already issued stay valid
// until they expire.
import type { Sequelize, Transaction } from 'sequelize';
import type { Actor } from '../../shared/access/actor.ts';
import { assertCan } from '../../shared/access/policy.ts';
import { requireTenant } from '../../shared/access/tenancy.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError, errors } from '../../shared/errors.ts';
import type { Sql } from '../../shared/sql.ts';
import type { AuditService } from '../audit/index.ts';
import type { User } from '../users/index.ts';

export interface SsoPolicy {
  requireSso: boolean;
  breakGlassUserId: string | null;
  updatedAt: Date | null;
}

interface Row {
  require_sso: boolean;
  break_glass_user_id: string | null;
  updated_at: Date;
}

export class SsoPolicyService {
  constructor(private readonly deps: { sequelize: Sequelize; sql: Sql; clock: Clock; audit: AuditService }) {}

  async get(actor: Actor): Promise<SsoPolicy> {
    assertCan(actor, 'integrations:configure');
    return this.of(requireTenant(actor));
  }

  async set(actor: Actor, input: { requireSso: boolean; breakGlassUserId?: string | null }): Promise<SsoPolicy> {
    assertCan(actor, 'integrations:configure');
    const organizationId = requireTenant(actor);
    const { sql, clock, audit, sequelize } = this.deps;
    const breakGlassUserId = input.breakGlassUserId ?? null;
    if (breakGlassUserId) {
      const admin = await sql.one(
        `SELECT id FROM users WHERE id = $1 AND organization_id = $2 AND role = 'ROLE_CLIENT_ADMIN'
            AND status = 'active' AND deleted_at IS NULL`,
        [breakGlassUserId, organizationId],
      );
      if (!admin)
        throw errors.validation([
          { field: 'breakGlassUserId', message: 'must be an active client admin of this organization' },
        ]);
    }
    if (input.requireSso) {
      const active = await sql.one(
        "SELECT id FROM sso_connections WHERE organization_id = $1 AND status = 'active' LIMIT 1",
        [organizationId],
      );
      if (!active)
        throw new AppError('invalid_connection', 'Enable an SSO connection before requiring SSO: nobody could sign in');
    }
    return sequelize.transaction(async (transaction) => {
      const before = await this.of(organizationId, transaction);
      const row = await sql.one<Row>(
        `INSERT INTO sso_policies (organization_id, require_sso, break_glass_user_id, updated_at)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (organization_id) DO UPDATE SET require_sso = EXCLUDED.require_sso,
           break_glass_user_id = EXCLUDED.break_glass_user_id, updated_at = EXCLUDED.updated_at
         RETURNING require_sso, break_glass_user_id, updated_at`,
        [organizationId, input.requireSso, breakGlassUserId, clock.now()],
        transaction,
      );
      const after = toPolicy(row);
      await audit.record(
        actor,
        {
          action: 'sso.policy_changed',
          targetType: 'organization',
          targetId: organizationId,
          organizationId,
          before: { requireSso: before.requireSso, breakGlassUserId: before.breakGlassUserId },
          after: { requireSso: after.requireSso, breakGlassUserId: after.breakGlassUserId },
        },
        transaction,
      );
      return after;
    });
  }

  /** For password logins (AuthService): refuses users of an organization that requires SSO. */
  readonly checkPasswordLogin = async (user: User): Promise<void> => {
    if (!user.organizationId) return;
    const policy = await this.of(user.organizationId);
    // the exemption is the client admin's: one demoted since it was named has no password way in
    const breakGlass = policy.breakGlassUserId === user.id && user.role === 'ROLE_CLIENT_ADMIN';
    if (policy.requireSso && !breakGlass)
      throw new AppError(
        'sso_required',
        'Your organization signs you in with single sign-on: use "Sign in with SSO" (/auth/sso) instead of a password',
      );
  };

  private async of(organizationId: string, transaction?: Transaction): Promise<SsoPolicy> {
    return toPolicy(
      await this.deps.sql.one<Row>(
        'SELECT require_sso, break_glass_user_id, updated_at FROM sso_policies WHERE organization_id = $1',
        [organizationId],
        transaction,
      ),
    );
  }
}

function toPolicy(row: Row | undefined): SsoPolicy {
  return {
    requireSso: row?.require_sso ?? false,
    breakGlassUserId: row?.break_glass_user_id ?? null,
    updatedAt: row?.updated_at ?? null,
  };
}

/**
 * While "Require SSO" is on, an organization's last active connection is its only way in (a password
 * login is refused to all but the break-glass admin): it is not disabled or deleted, as the policy is
 * not turned on without one.
 */
export async function assertNotTheWayIn(sql: Sql, connection: { id: string; organizationId: string }): Promise<void> {
  const locked = await sql.one(
    `SELECT 1 AS locked FROM sso_policies p
      WHERE p.organization_id = $1 AND p.require_sso
        AND NOT EXISTS (SELECT 1 FROM sso_connections c
                         WHERE c.organization_id = p.organization_id AND c.status = 'active' AND c.id <> $2)`,
    [connection.organizationId, connection.id],
  );
  if (locked)
    throw new AppError(
      'invalid_connection',
      "Require SSO is on and this is the organization's last active connection: nobody could sign in. " +
        'Turn Require SSO off first (PUT /api/sso/policy), or enable another connection',
    );
}
