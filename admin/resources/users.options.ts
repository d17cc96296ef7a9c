// The Users datagrid's columns, filters, forms and actions (Edit, Impersonate, Delete) in the portal.
import type { ActionRequest, ActionResponse, ResourceOptions, ActionContext } from 'adminjs';
import type { Container } from '../../src/container.ts';
import { ROLES } from '../../src/shared/access/roles.ts';
import { ROLE_FILTER_GROUPS, ROLE_LABELS, STATUS_LABELS } from '../../src/modules/users/user.labels.ts';
import type { PortalComponents } from '../components/index.ts';
import { portalActor } from '../portal-actor.ts';
import { noticeOf } from '../portal-errors.ts';

const LIST = ['name', 'email', 'role', 'organizationId', 'status', 'lastLoginAt', 'createdAt'];
const FILTER = ['name', 'email', 'roleGroup', 'organizationId', 'status', 'lastLoginAt', 'createdAt'];
const SHOW = ['name', 'email', 'phone', 'role', 'organizationId', 'status', 'mfaEnabled', 'lastLoginAt', 'createdAt'];
/** AdminJS has one form for new and edit: creation-only fields say so, and update ignores them. */
const EDIT = ['firstName', 'lastName', 'email', 'phone', 'role', 'organizationId', 'status', 'confirmPrivilegeChange', 'password', 'generatePassword'];

const visible = (path: string) => ({ list: LIST.includes(path), filter: FILTER.includes(path), show: SHOW.includes(path), edit: EDIT.includes(path) });

/** Labels go through AdminJS's locale (properties have no label option in AdminJS 7). */
export const USER_PROPERTY_LABELS: Record<string, string> = {"roleGroup": "Role", "organizationId": "Organization", "lastLoginAt": "Last Login", "createdAt": "Created", "mfaEnabled": "MFA enabled", "password": "Initial password (new users only; optional)", "generatePassword": "Generate a password and e-mail it (new users only)", "confirmPrivilegeChange": "Confirm raising the role (edit only)"};

export function usersOptions(container: Container, components: PortalComponents): ResourceOptions {
  const { services } = container;
  const recordId = (request: ActionRequest) => String(request.params.recordId);
  return {
    id: 'users',
    navigation: { name: 'Platform', icon: 'Users' },
    titleProperty: 'name',
    sort: { sortBy: 'createdAt', direction: 'desc' },
    listProperties: LIST,
    filterProperties: FILTER,
    showProperties: SHOW,
    editProperties: EDIT,
    properties: {
      id: { isVisible: false },
      name: { isTitle: true, isVisible: visible('name') },
      firstName: { isVisible: visible('firstName'), isRequired: true },
      lastName: { isVisible: visible('lastName'), isRequired: true },
      email: { isVisible: visible('email'), isRequired: true },
      phone: { isVisible: visible('phone') },
      role: { isVisible: visible('role'), isRequired: true, availableValues: ROLES.map((value) => ({ value, label: ROLE_LABELS[value] })) },
      roleGroup: { isVisible: visible('roleGroup'), availableValues: Object.entries(ROLE_FILTER_GROUPS).map(([value, g]) => ({ value, label: g.label })) },
      organizationId: { type: 'reference', reference: 'organizations', isVisible: visible('organizationId') },
      status: { isVisible: visible('status'), availableValues: Object.entries(STATUS_LABELS).map(([value, label]) => ({ value, label })) },
      lastLoginAt: { isVisible: visible('lastLoginAt') },
      createdAt: { isVisible: visible('createdAt') },
      mfaEnabled: { isVisible: visible('mfaEnabled') },
      password: { isVisible: { list: false, filter: false, show: false, edit: true } },
      generatePassword: { isVisible: { list: false, filter: false, show: false, edit: true } },
      confirmPrivilegeChange: { isVisible: { list: false, filter: false, show: false, edit: true } },
    },
    actions: {
      bulkDelete: { isAccessible: false },
      delete: {
        actionType: 'record',
        icon: 'Trash2',
        variant: 'danger',
        guard: undefined,
        component: components.DeleteUser,
        handler: async (request: ActionRequest, _response: unknown, context: ActionContext): Promise<ActionResponse> => {
          const actor = await portalActor(context.currentAdmin);
          const record = context.record!.toJSON(context.currentAdmin);
          if (request.method === 'get') {
            const { associatedData } = await services.users.get(actor, recordId(request));
            return { record, associatedData };
          }
          try {
            const transferTo = (request.payload?.transferTo as string | undefined) || undefined;
            const deleted = await services.userDeletion.softDelete(actor, recordId(request), { transferTo });
            const summary = deleted.warnings.length ? ` ${deleted.warnings.join(' ')}` : '';
            return { record, redirectUrl: context.h.resourceUrl({ resourceId: 'users' }), notice: { message: `Deleted ${deleted.user.email}.${summary}`, type: 'success' } };
          } catch (error) {
            return { record, notice: noticeOf(error) };
          }
        },
      },
      impersonate: {
        actionType: 'record',
        icon: 'Eye',
        component: components.ImpersonateUser,
        handler: async (request: ActionRequest, _response: unknown, context: ActionContext): Promise<ActionResponse> => {
          const record = context.record!.toJSON(context.currentAdmin);
          if (request.method === 'get') return { record };
          try {
            const actor = await portalActor(context.currentAdmin);
            const mode = request.payload?.mode === 'act_as_user' ? 'act_as_user' : 'read_only';
            const started = await services.impersonation.start(actor, recordId(request), { mode, reason: (request.payload?.reason as string | undefined) || undefined });
            return {
              record,
              impersonation: { token: started.token.token, expiresAt: started.token.expiresAt.toISOString(), redirectUrl: started.redirectUrl, mode },
              notice: { message: `Impersonating ${record.params.email} (${mode === 'read_only' ? 'read-only' : 'acting as the user'}) until ${started.token.expiresAt.toISOString()}`, type: 'success' },
            };
          } catch (error) {
            return { record, notice: noticeOf(error) };
          }
        },
      },
      exportCsv: {
        actionType: 'resource',
        icon: 'Download',
        showInDrawer: true, // carries the list's filters and sort over to the export link
        component: components.ExportUsers,
        handler: async () => ({}),
      },
    },
  };
}
