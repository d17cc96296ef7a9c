// Entitlements: a purchase of a paid resource by a member, recorded by an integrator (an API key) or
// a client admin. No payment processing here: the entitlement is what the access policy's `open`
// checks for paid resources. Revoking keeps the row (revoked_at) for history; a member has at most one
// active entitlement per resource.
import { UniqueConstraintError, type Sequelize } from 'sequelize';
import type { Actor } from '../../shared/access/actor.ts';
import { scopeFor } from '../../shared/access/scope.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError, errors } from '../../shared/errors.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import type { Sql } from '../../shared/sql.ts';
import type { AuditService } from '../audit/index.ts';
import type { ResourceEvents } from '../library/index.ts';
import { toEntitlementDto, type EntitlementDto, type EntitlementRow } from './entitlement.mapper.ts';

export interface EntitlementInput {
  memberId: string;
  reference?: string | null;
}

export interface EntitlementFilter {
  memberId?: string;
  active?: boolean;
}

const SELECT = `SELECT id, resource_id AS "resourceId", member_id AS "memberId", reference, granted_at AS "grantedAt",
                       revoked_at AS "revokedAt", created_at AS "createdAt" FROM resource_entitlements`;

export class ResourceEntitlementService {
  constructor(
    private readonly deps: {
      sequelize: Sequelize;
      sql: Sql;
      clock: Clock;
      audit: AuditService;
      events: ResourceEvents;
    },
  ) {}

  async grant(actor: Actor, resourceId: string, input: EntitlementInput): Promise<EntitlementDto> {
    const organizationId = await this.requireResource(actor, resourceId, true);
    const member = await this.deps.sql.one<{ id: string }>(
      'SELECT id FROM members WHERE id = $1 AND organization_id = $2',
      [input.memberId, organizationId],
    );
    if (!member) {
      throw new AppError('unprocessable', `Member ${input.memberId} is not a member of this organization`, {
        errors: [{ field: 'memberId', message: 'names no member of this organization' }],
      });
    }
    try {
      return await this.deps.sequelize.transaction(async (transaction) => {
        const row = await this.deps.sql.one<EntitlementRow>(
          `INSERT INTO resource_entitlements (organization_id, resource_id, member_id, reference, granted_at, created_by)
           VALUES ($1, $2, $3, $4, $5, $6)
           RETURNING id, resource_id AS "resourceId", member_id AS "memberId", reference, granted_at AS "grantedAt", revoked_at AS "revokedAt", created_at AS "createdAt"`,
          [
            organizationId,
            resourceId,
            member.id,
            input.reference ?? null,
            this.deps.clock.now(),
            actor.type === 'user' ? actor.id : null,
          ],
          transaction,
        );
        const dto = toEntitlementDto(row!);
        await this.deps.audit.record(
          actor,
          {
            action: 'resource_entitlement.granted',
            targetType: 'resource_entitlement',
            targetId: dto.id,
            after: { ...dto },
          },
          transaction,
        );
        await this.deps.events.publish(actor, 'resource.entitlement_granted', dto, transaction);
        return dto;
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      throw new AppError('already_exists', 'This member already has an active entitlement to this resource', {
        errors: [{ field: 'memberId', message: 'already entitled' }],
      });
    }
  }

  async list(
    actor: Actor,
    resourceId: string,
    filter: EntitlementFilter,
    page: PageRequest,
  ): Promise<Page<EntitlementDto>> {
    await this.requireResource(actor, resourceId, false);
    const values: unknown[] = [resourceId];
    const where = ['resource_id = $1'];
    if (filter.memberId) where.push(`member_id = $${values.push(filter.memberId)}`);
    if (filter.active !== undefined) where.push(filter.active ? 'revoked_at IS NULL' : 'revoked_at IS NOT NULL');
    const whereSql = where.join(' AND ');
    const rows = await this.deps.sql.rows<EntitlementRow>(
      `${SELECT} WHERE ${whereSql} ORDER BY granted_at DESC, id DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
      [...values, page.itemsPerPage, offsetOf(page)],
    );
    const count = await this.deps.sql.one<{ total: number }>(
      `SELECT count(*)::int AS total FROM resource_entitlements WHERE ${whereSql}`,
      values,
    );
    return pageOf(rows.map(toEntitlementDto), count?.total ?? 0, page);
  }

  /** Sets revoked_at (kept for history); revoking a revoked entitlement changes nothing. */
  async revoke(actor: Actor, resourceId: string, entitlementId: string): Promise<void> {
    await this.requireResource(actor, resourceId, false);
    await this.deps.sequelize.transaction(async (transaction) => {
      const row = await this.deps.sql.one<EntitlementRow>(
        `${SELECT} WHERE id = $1 AND resource_id = $2 FOR UPDATE`,
        [entitlementId, resourceId],
        transaction,
      );
      if (!row) throw errors.notFound('entitlement', entitlementId);
      if (row.revokedAt) return;
      const revokedAt = this.deps.clock.now();
      await this.deps.sql.query(
        'UPDATE resource_entitlements SET revoked_at = $2 WHERE id = $1',
        [entitlementId, revokedAt],
        transaction,
      );
      await this.deps.audit.record(
        actor,
        {
          action: 'resource_entitlement.revoked',
          targetType: 'resource_entitlement',
          targetId: entitlementId,
          before: { ...toEntitlementDto(row) },
        },
        transaction,
      );
      await this.deps.events.publish(
        actor,
        'resource.entitlement_revoked',
        toEntitlementDto({ ...row, revokedAt }),
        transaction,
      );
    });
  }

  /**
   * Entitlements are the managers' (client admins, API keys: `resources:write`). The resource must be
   * the organization's (404 otherwise); granting needs a paid one (422 otherwise).
   */
  private async requireResource(actor: Actor, resourceId: string, mustBePaid: boolean): Promise<string> {
    const { organizationId } = scopeFor(actor, 'resource', 'write') as { organizationId: string };
    const resource = await this.deps.sql.one<{ accessLevel: string }>(
      'SELECT access_level AS "accessLevel" FROM resources WHERE id = $1 AND organization_id = $2',
      [resourceId, organizationId],
    );
    if (!resource) throw errors.notFound('resource', resourceId);
    if (mustBePaid && resource.accessLevel !== 'paid') {
      throw new AppError(
        'unprocessable',
        `Only paid resources take entitlements; this one is ${resource.accessLevel}`,
        { accessLevel: resource.accessLevel },
      );
    }
    return organizationId;
  }
}

const isUniqueViolation = (error: unknown) =>
  error instanceof UniqueConstraintError ||
  (typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505');
