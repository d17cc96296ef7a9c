// Organizations in the Admin Portal: not a model adapter but the API's OrganizationService, so the
// list carries its counts and every change (create, edit, plan, suspension) is audited and announced
// exactly as through the API.
import { BaseProperty, BaseRecord, ValidationError, type ActionContext, type Filter, type ParamsType } from 'adminjs';
import type { AppEnv, Plan } from '../../src/config.ts';
import type { AppContext as Container } from '../../src/app-context.ts';
import type { OrganizationStatus } from '../../src/modules/organizations/organization.model.ts';
import type { OrganizationFilter, OrganizationRow } from '../../src/modules/organizations/organization.repository.ts';
import { AppError } from '../../src/shared/errors.ts';
import { ServiceResource } from './service.resource.ts';
import { isUuid } from './ids.ts';
import { portalActor } from '../portal-actor.ts';
import { refusalsAsNotices } from '../portal-errors.ts';
import { PORTAL_PROPERTIES } from './portal-properties.ts';

const property = (
  path: string,
  type: ConstructorParameters<typeof BaseProperty>[0]['type'],
  position: number,
  isId = false,
) => new BaseProperty({ path, type, isId, isSortable: false, position });

const ORGANIZATION_PROPERTIES = [
  property('id', 'uuid', 0, true),
  property('name', 'string', 1),
  property('slug', 'string', 2),
  property('plan', 'string', 3),
  property('environment', 'string', 4),
  property('status', 'string', 5),
  property('userCount', 'number', 6),
  property('memberCount', 'number', 7),
  property('apiKeyCount', 'number', 8),
  property('suspendedAt', 'datetime', 9),
  property('createdAt', 'datetime', 10),
  property('updatedAt', 'datetime', 11),
];

/** The service's row, cut to what PORTAL_PROPERTIES lets the browser see. */
export const toOrganizationParams = (row: OrganizationRow): ParamsType =>
  Object.fromEntries(PORTAL_PROPERTIES.organizations.map((name) => [name, row[name]]));

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

/** AdminJS list state -> the service's filter; `name` is also what reference autocompletes search by. */
export function portalOrganizationFilter(filter: Filter | undefined): OrganizationFilter {
  const values = Object.fromEntries(Object.values(filter?.filters ?? {}).map((f) => [f.path, f.value]));
  const status = text(values.status);
  const plan = text(values.plan);
  return {
    q: text(values.name) ?? text(values.slug),
    statuses: status ? [status as OrganizationStatus] : undefined,
    plans: plan ? [plan as Plan] : undefined,
    environment: text(values.environment) as AppEnv | undefined,
  };
}

/** The contract's rules for the fields (the API's validator does this there; the portal has no validator of its own). */
const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
function validate(params: Record<string, unknown>, creating: boolean): void {
  const fields: Record<string, { message: string }> = {};
  const name = params.name === undefined ? undefined : String(params.name);
  const slug = params.slug === undefined ? undefined : String(params.slug);
  if ((creating || name !== undefined) && !(name ?? '').trim()) fields.name = { message: 'is required' };
  else if (name && name.length > 200) fields.name = { message: 'is longer than 200 characters' };
  if ((creating || slug !== undefined) && !SLUG.test(slug ?? ''))
    fields.slug = { message: 'lower-case letters, digits and hyphens, starting with a letter or digit' };
  if (Object.keys(fields).length)
    throw new ValidationError(fields, { message: 'Check the highlighted fields', type: 'validation_failed' });
}

export class OrganizationsResource extends ServiceResource {
  constructor(container: Container) {
    super(container, 'organizations', ORGANIZATION_PROPERTIES);
  }

  private get service() {
    return this.container.services.organizations;
  }

  override async count(filter: Filter, context?: ActionContext): Promise<number> {
    const page = await this.service.list(await portalActor(context?.currentAdmin), portalOrganizationFilter(filter), {
      page: 1,
      itemsPerPage: 1,
    });
    return page.pagination.totalItems;
  }

  override async find(
    filter: Filter,
    options: { limit?: number; offset?: number },
    context?: ActionContext,
  ): Promise<BaseRecord[]> {
    const itemsPerPage = options.limit ?? 25;
    const page = { page: Math.floor((options.offset ?? 0) / itemsPerPage) + 1, itemsPerPage };
    const result = await this.service.list(
      await portalActor(context?.currentAdmin),
      portalOrganizationFilter(filter),
      page,
    );
    return result.data.map((row) => new BaseRecord(toOrganizationParams(row), this));
  }

  override async findOne(id: string, context?: ActionContext): Promise<BaseRecord | null> {
    if (!isUuid(id)) return null;
    try {
      return new BaseRecord(
        toOrganizationParams(await this.service.get(await portalActor(context?.currentAdmin), id)),
        this,
      );
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return null;
      throw error;
    }
  }

  /** What AdminJS uses to name the organization a user or an audit entry references. */
  override async findMany(ids: Array<string | number>, context?: ActionContext): Promise<BaseRecord[]> {
    const found = await Promise.all([...new Set(ids.map(String))].map((id) => this.findOne(id, context)));
    return found.filter((r): r is BaseRecord => r !== null);
  }

  override async create(params: Record<string, unknown>, context?: ActionContext): Promise<ParamsType> {
    validate(params, true);
    const actor = await portalActor(context?.currentAdmin);
    const row = await refusalsAsNotices(() =>
      this.service.create(actor, {
        name: String(params.name ?? ''),
        slug: String(params.slug ?? ''),
        plan: text(params.plan) as Plan | undefined,
        environment: text(params.environment) as AppEnv | undefined,
        status: text(params.status) as OrganizationStatus | undefined,
      }),
    );
    return toOrganizationParams(row);
  }

  override async update(id: string, params: Record<string, unknown>, context?: ActionContext): Promise<ParamsType> {
    validate(params, false);
    const actor = await portalActor(context?.currentAdmin);
    const row = await refusalsAsNotices(() =>
      this.service.update(actor, id, {
        name: text(params.name),
        slug: text(params.slug),
        plan: text(params.plan) as Plan | undefined,
        environment: text(params.environment) as AppEnv | undefined,
        status: text(params.status) as OrganizationStatus | undefined,
      }),
    );
    return toOrganizationParams(row);
  }

  override async delete(): Promise<void> {
    throw new Error('Organizations are suspended, not deleted');
  }
}
