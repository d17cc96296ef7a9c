// Organizations are the tenants. Only platform admins create and change them; every change is
// audited and announced as an organization.* domain event in the same transaction. Suspending an
// organization refuses its users and API keys at once (the credential caches are emptied by the
// model hook the container installs).
import { UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import type { AppEnv, Plan } from '../../config.ts';
import type { Actor } from '../../shared/access/actor.ts';
import { assertCan } from '../../shared/access/policy.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError, errors } from '../../shared/errors.ts';
import { pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import type { Sql } from '../../shared/sql.ts';
import type { AuditService } from '../audit/index.ts';
import { toOrganizationSnapshot } from './organization.mapper.ts';
import { Organization, type OrganizationStatus } from './organization.model.ts';
import {
  findOrganizationPage,
  findOrganizationRow,
  type OrganizationFilter,
  type OrganizationRow,
} from './organization.repository.ts';

export interface OrganizationInput {
  name: string;
  slug: string;
  plan?: Plan;
  environment?: AppEnv;
  status?: OrganizationStatus;
}

export type OrganizationUpdate = Partial<OrganizationInput>;

/** Where organization.* events go (the domain event outbox). */
export interface OrganizationEvents {
  publish(actor: Actor, type: string, data: object, transaction: Transaction): Promise<void>;
}

export class OrganizationService {
  constructor(
    private readonly deps: {
      sequelize: Sequelize;
      sql: Sql;
      clock: Clock;
      audit: AuditService;
      events: OrganizationEvents;
    },
  ) {}

  async list(actor: Actor, filter: OrganizationFilter, page: PageRequest): Promise<Page<OrganizationRow>> {
    assertCan(actor, 'platform:admin');
    const { rows, total } = await findOrganizationPage(this.deps.sql, filter, page);
    return pageOf(rows, total, page);
  }

  async get(actor: Actor, id: string): Promise<OrganizationRow> {
    assertCan(actor, 'platform:admin');
    const row = await findOrganizationRow(this.deps.sql, id);
    if (!row) throw errors.notFound('Organization', id);
    return row;
  }

  async create(actor: Actor, input: OrganizationInput): Promise<OrganizationRow> {
    assertCan(actor, 'platform:admin');
    const status = input.status ?? 'active';
    const id = await this.write(async (transaction) => {
      const organization = await Organization.create(
        {
          name: input.name.trim(),
          slug: input.slug,
          plan: input.plan ?? 'standard',
          environment: input.environment ?? 'production',
          status,
          suspendedAt: status === 'suspended' ? this.deps.clock.now() : null,
        },
        { transaction },
      );
      const after = toOrganizationSnapshot(organization);
      await this.deps.audit.record(
        actor,
        {
          action: 'organization.created',
          targetType: 'organization',
          targetId: organization.id,
          organizationId: organization.id,
          after,
        },
        transaction,
      );
      await this.deps.events.publish(actor, 'organization.created', { id: organization.id, ...after }, transaction);
      return organization.id;
    });
    return this.get(actor, id);
  }

  /** Changes only the fields sent; a status change is also announced as suspended/reactivated. */
  async update(actor: Actor, id: string, input: OrganizationUpdate): Promise<OrganizationRow> {
    assertCan(actor, 'platform:admin');
    if (actor.organizationId === id && input.status === 'suspended') {
      throw new AppError(
        'cannot_modify_self',
        'You cannot suspend the organization you are acting in: ' +
          'send the request without a Guildhall-Organization header naming it',
      );
    }
    await this.write(async (transaction) => {
      const organization = await Organization.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
      if (!organization) throw errors.notFound('Organization', id);
      const before = toOrganizationSnapshot(organization);
      if (input.name !== undefined) organization.name = input.name.trim();
      if (input.slug !== undefined) organization.slug = input.slug;
      if (input.plan !== undefined) organization.plan = input.plan;
      if (input.environment !== undefined) organization.environment = input.environment;
      if (input.status !== undefined && input.status !== organization.status) {
        organization.status = input.status;
        organization.suspendedAt = input.status === 'suspended' ? this.deps.clock.now() : null;
      }
      if (!organization.changed()) return;
      await organization.save({ transaction });
      const after = toOrganizationSnapshot(organization);
      await this.deps.audit.record(
        actor,
        { action: 'organization.updated', targetType: 'organization', targetId: id, organizationId: id, before, after },
        transaction,
      );
      await this.deps.events.publish(actor, 'organization.updated', { id, ...after }, transaction);
      if (before.status !== after.status) {
        const change = after.status === 'suspended' ? 'organization.suspended' : 'organization.reactivated';
        await this.deps.events.publish(actor, change, { id, ...after }, transaction);
      }
    });
    return this.get(actor, id);
  }

  /** A taken slug is a 409 that names the field, not a bare constraint error. */
  private async write<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    try {
      return await this.deps.sequelize.transaction(work);
    } catch (error) {
      if (!(error instanceof UniqueConstraintError)) throw error;
      throw new AppError('already_exists', 'Another organization already uses this slug', {
        errors: [{ field: 'slug', message: 'is already in use' }],
      });
    }
  }
}
