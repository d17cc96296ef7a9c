// Organizations in the portal: columns with the counts, the create/edit form, and the actions a
// platform admin manages tenants with (change plan, suspend, reactivate, the organization's users).
import type { ActionContext, ActionRequest, ActionResponse, ResourceOptions } from 'adminjs';
import type { Plan } from '../../src/config.ts';
import type { AppContext as Container } from '../../src/app-context.ts';
import type { OrganizationStatus } from '../../src/modules/organizations/organization.model.ts';
import type { PortalComponents } from '../components/index.ts';
import { portalActor } from '../portal-actor.ts';
import { namedSuccess, noticeOf } from '../portal-errors.ts';
import { toOrganizationParams } from './organizations.resource.ts';

export const PLANS: Plan[] = ['standard', 'professional', 'enterprise'];
const LIST = ['name', 'slug', 'plan', 'environment', 'status', 'userCount', 'memberCount', 'apiKeyCount', 'createdAt'];
const SHOW = [
  'name',
  'slug',
  'plan',
  'environment',
  'status',
  'suspendedAt',
  'userCount',
  'memberCount',
  'apiKeyCount',
  'createdAt',
  'updatedAt',
];
const FILTER = ['name', 'plan', 'environment', 'status'];
const EDIT = ['name', 'slug', 'plan', 'environment', 'status'];

export const ORGANIZATION_PROPERTY_LABELS: Record<string, string> = {
  userCount: 'Users',
  memberCount: 'Members',
  apiKeyCount: 'Active API keys',
  suspendedAt: 'Suspended',
  createdAt: 'Created',
  updatedAt: 'Updated',
};

const visible = (path: string) => ({
  list: LIST.includes(path),
  filter: FILTER.includes(path),
  show: SHOW.includes(path),
  edit: EDIT.includes(path),
});
const choices = (values: readonly string[]) =>
  values.map((value) => ({ value, label: value[0]!.toUpperCase() + value.slice(1) }));
/** The plans as the portal names them ("Professional"), for the dashboard's counts. */
export const PLAN_LABELS: Record<string, string> = Object.fromEntries(
  choices(PLANS).map(({ value, label }) => [value, label]),
);

export function organizationsOptions(container: Container, components: PortalComponents): ResourceOptions {
  const { organizations } = container.services;

  /** One service call, then the fresh record and a notice (or the refusal as a notice). */
  const change =
    (input: (request: ActionRequest) => { plan?: Plan; status?: OrganizationStatus }, done: string) =>
    async (request: ActionRequest, _response: unknown, context: ActionContext): Promise<ActionResponse> => {
      const record = context.record!;
      if (request.method === 'get') return { record: record.toJSON(context.currentAdmin) };
      try {
        const row = await organizations.update(
          await portalActor(context.currentAdmin),
          String(record.id()),
          input(request),
        );
        record.params = toOrganizationParams(row);
        return {
          record: record.toJSON(context.currentAdmin),
          redirectUrl: context.h.recordActionUrl({ resourceId: 'organizations', recordId: row.id, actionName: 'show' }),
          notice: { message: `${row.name}: ${done}`, type: 'success' },
        };
      } catch (error) {
        return { record: record.toJSON(context.currentAdmin), notice: noticeOf(error) };
      }
    };

  return {
    id: 'organizations',
    navigation: { name: 'Platform', icon: 'Database' },
    titleProperty: 'name',
    listProperties: LIST,
    showProperties: SHOW,
    filterProperties: FILTER,
    editProperties: EDIT,
    properties: {
      id: { isVisible: false },
      name: { isTitle: true, isRequired: true, isVisible: visible('name') },
      slug: {
        isRequired: true,
        isVisible: visible('slug'),
        description: 'Lower-case letters, digits and hyphens; unique across the platform.',
      },
      plan: { availableValues: choices(PLANS), isVisible: visible('plan') },
      environment: { availableValues: choices(['production', 'sandbox']), isVisible: visible('environment') },
      status: { availableValues: choices(['active', 'suspended']), isVisible: visible('status') },
      userCount: { isVisible: visible('userCount') },
      memberCount: { isVisible: visible('memberCount') },
      apiKeyCount: { isVisible: visible('apiKeyCount') },
      suspendedAt: { isVisible: visible('suspendedAt') },
      createdAt: { isVisible: visible('createdAt') },
      updatedAt: { isVisible: visible('updatedAt') },
    },
    actions: {
      delete: { isAccessible: false },
      bulkDelete: { isAccessible: false },
      new: { after: namedSuccess('Organization', 'name') },
      edit: { after: namedSuccess('Organization', 'name') },
      changePlan: {
        actionType: 'record',
        icon: 'CreditCard',
        component: components.ChangePlan,
        handler: change((request) => ({ plan: PLANS.find((plan) => plan === request.payload?.plan) }), 'plan changed'),
      },
      suspend: {
        actionType: 'record',
        icon: 'PauseCircle',
        variant: 'danger',
        component: components.ConfirmAction,
        guard: 'Suspend this organization? Its users, API keys and directory sync are refused at once.',
        isAccessible: ({ record }) => record?.params.status === 'active',
        handler: change(() => ({ status: 'suspended' }), 'suspended'),
      },
      reactivate: {
        actionType: 'record',
        icon: 'PlayCircle',
        component: components.ConfirmAction,
        guard: 'Reactivate this organization? Its users and API keys work again.',
        isAccessible: ({ record }) => record?.params.status === 'suspended',
        handler: change(() => ({ status: 'active' }), 'reactivated'),
      },
      usersOfOrganization: {
        actionType: 'record',
        icon: 'Users',
        component: false,
        handler: async (
          _request: ActionRequest,
          _response: unknown,
          context: ActionContext,
        ): Promise<ActionResponse> => ({
          record: context.record!.toJSON(context.currentAdmin),
          redirectUrl: `${context.h.resourceUrl({ resourceId: 'users' })}?filters.organizationId=${encodeURIComponent(String(context.record!.id()))}`,
        }),
      },
    },
  };
}
