// The Users resource of the Admin Portal: not a generic model adapter but the API's own datagrid
// service, so the portal's list, filters, sorting, counts and every change obey the same rules.
import { BaseProperty, BaseRecord, type ActionContext, type Filter, type ParamsType } from 'adminjs';
import type { AppContext as Container } from '../../src/app-context.ts';
import type { Role } from '../../src/shared/access/roles.ts';
import { AppError } from '../../src/shared/errors.ts';
import type { UserRow } from '../../src/modules/users/user-query.repository.ts';
import { ServiceResource } from './service.resource.ts';
import { isUuid } from './ids.ts';
import { portalActor } from '../portal-actor.ts';
import { portalUserFilter, portalUserSort } from './users.filter.ts';
import { userFormRefusals } from './users.refusals.ts';

const property = (
  path: string,
  type: ConstructorParameters<typeof BaseProperty>[0]['type'],
  options: { isId?: boolean; isSortable?: boolean; position: number },
) =>
  new BaseProperty({
    path,
    type,
    isId: options.isId ?? false,
    isSortable: options.isSortable ?? false,
    position: options.position,
  });

const USER_PROPERTIES = [
  property('id', 'uuid', { isId: true, position: 0 }),
  property('name', 'string', { isSortable: true, position: 1 }),
  property('firstName', 'string', { position: 2 }),
  property('lastName', 'string', { position: 3 }),
  property('email', 'string', { isSortable: true, position: 4 }),
  property('role', 'string', { isSortable: true, position: 5 }),
  property('roleGroup', 'string', { position: 6 }),
  property('organizationId', 'reference', { isSortable: true, position: 7 }),
  property('status', 'string', { isSortable: true, position: 8 }),
  property('lastLoginAt', 'datetime', { isSortable: true, position: 9 }),
  property('createdAt', 'datetime', { isSortable: true, position: 10 }),
  property('phone', 'string', { position: 11 }),
  property('mfaEnabled', 'boolean', { position: 12 }),
  property('password', 'password', { position: 13 }),
  property('generatePassword', 'boolean', { position: 14 }),
  property('confirmPrivilegeChange', 'boolean', { position: 15 }),
  property('deletedAt', 'datetime', { position: 16 }),
  // filters only: the Deleted users view and the quick search box
  property('deleted', 'boolean', { position: 17 }),
  property('q', 'string', { position: 18 }),
];

export function toUserParams(row: UserRow): ParamsType {
  return {
    id: row.id,
    name: `${row.firstName} ${row.lastName}`,
    firstName: row.firstName,
    lastName: row.lastName,
    email: row.email,
    phone: row.phone ?? '',
    role: row.role,
    organizationId: row.organizationId,
    status: row.status,
    mfaEnabled: row.mfaEnabledAt !== null,
    lastLoginAt: row.lastLoginAt,
    createdAt: row.createdAt,
    deletedAt: row.deletedAt,
  };
}

const blank = (value: unknown) => value === undefined || value === null || value === '';
const optional = (value: unknown) => (blank(value) ? undefined : String(value));
const nullable = (value: unknown) => (blank(value) ? null : String(value));
const yes = (value: unknown) => value === true || value === 'true';
/**
 * A required field the form sent empty goes to the service as '' and is refused there; read as left out,
 * it was kept as it was and the save reported success.
 */
const required = (params: Record<string, unknown>, name: string) =>
  name in params ? String(params[name] ?? '') : undefined;

export class UsersResource extends ServiceResource {
  constructor(container: Container) {
    super(container, 'users', USER_PROPERTIES);
  }

  override async count(filter: Filter, context?: ActionContext): Promise<number> {
    const page = await this.container.services.users.list(
      await portalActor(context?.currentAdmin),
      portalUserFilter(filtersOf(filter)),
      portalUserSort(undefined),
      { page: 1, itemsPerPage: 1 },
    );
    return page.pagination.totalItems;
  }

  override async find(
    filter: Filter,
    options: { limit?: number; offset?: number; sort?: { sortBy?: string; direction?: 'asc' | 'desc' } },
    context?: ActionContext,
  ): Promise<BaseRecord[]> {
    const itemsPerPage = options.limit ?? 25;
    const page = { page: Math.floor((options.offset ?? 0) / itemsPerPage) + 1, itemsPerPage };
    const actor = await portalActor(context?.currentAdmin);
    const result = await this.container.services.users.list(
      actor,
      portalUserFilter(filtersOf(filter)),
      portalUserSort(options.sort),
      page,
    );
    return result.data.map((row) => new BaseRecord(toUserParams(row), this));
  }

  override async findOne(id: string, context?: ActionContext): Promise<BaseRecord | null> {
    const actor = await portalActor(context?.currentAdmin);
    if (!isUuid(id)) return null;
    try {
      const { user } = await this.container.services.users.get(actor, id);
      return new BaseRecord(toUserParams(user), this);
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return null;
      throw error;
    }
  }

  override async findMany(ids: Array<string | number>, context?: ActionContext): Promise<BaseRecord[]> {
    const found = await Promise.all(ids.map((id) => this.findOne(String(id), context)));
    return found.filter((r): r is BaseRecord => r !== null);
  }

  override async create(params: Record<string, unknown>, context?: ActionContext): Promise<ParamsType> {
    const actor = await portalActor(context?.currentAdmin);
    const row = await userFormRefusals(() =>
      this.container.services.users.create(actor, {
        firstName: String(params.firstName ?? ''),
        lastName: String(params.lastName ?? ''),
        email: String(params.email ?? ''),
        phone: nullable(params.phone),
        role: params.role as Role,
        organizationId: nullable(params.organizationId),
        // the service refuses a status a new user cannot start with (inactive, suspended) under the field
        status: (optional(params.status) ?? 'active') as 'active' | 'pending',
        password: optional(params.password),
        generatePassword: yes(params.generatePassword),
      }),
    );
    // AdminJS merges what is returned into the submitted form: without this the typed password went back
    return { ...toUserParams(row), password: null };
  }

  override async update(id: string, params: Record<string, unknown>, context?: ActionContext): Promise<ParamsType> {
    const actor = await portalActor(context?.currentAdmin);
    const row = await userFormRefusals(() =>
      this.container.services.users.update(actor, id, {
        firstName: required(params, 'firstName'),
        lastName: required(params, 'lastName'),
        email: required(params, 'email'),
        phone: nullable(params.phone),
        role: required(params, 'role') as Role | undefined,
        organizationId: nullable(params.organizationId),
        status: required(params, 'status') as 'active' | undefined,
        confirmPrivilegeChange: yes(params.confirmPrivilegeChange),
      }),
    );
    return toUserParams(row);
  }

  override async delete(id: string, context?: ActionContext): Promise<void> {
    const actor = await portalActor(context?.currentAdmin);
    await userFormRefusals(() => this.container.services.userDeletion.softDelete(actor, id));
  }
}

function filtersOf(filter: Filter): Record<string, unknown> {
  return Object.fromEntries(Object.values(filter.filters ?? {}).map((f) => [f.path, f.value]));
}
