// The Users datagrid's columns, filters, forms and actions (Edit, Impersonate, Delete) in the portal.
import type { ActionRequest, ActionResponse, ResourceOptions, ActionContext } from 'adminjs';
import type { AppContext as Container } from '../../src/app-context.ts';
import { ROLES } from '../../src/shared/access/roles.ts';
import { ROLE_FILTER_GROUPS, ROLE_LABELS, STATUS_LABELS } from '../../src/modules/users/user.labels.ts';
import type { PortalComponents } from '../components/index.ts';
import { portalActor } from '../portal-actor.ts';
import { Op } from 'sequelize';
import { User } from '../../src/modules/users/user.model.ts';
import { portalTime } from '../components/portal-time.ts';
import { auditNames } from './audit-names.ts';
import { namedSuccess } from '../portal-errors.ts';
import { userNotice } from './users.refusals.ts';

const LIST = ['name', 'email', 'role', 'organizationId', 'status', 'lastLoginAt', 'createdAt'];
const FILTER = ['name', 'email', 'roleGroup', 'organizationId', 'status', 'lastLoginAt', 'createdAt', 'deleted'];
const SHOW = [
  'name',
  'email',
  'phone',
  'role',
  'organizationId',
  'status',
  'mfaEnabled',
  'lastLoginAt',
  'createdAt',
  'deletedAt',
];
/**
 * AdminJS has one form for new and edit: UserFormField shows the creation-only fields (password) on
 * the new form only and the edit-only one (the confirmation) on the edit form only.
 */
const EDIT = [
  'firstName',
  'lastName',
  'email',
  'phone',
  'role',
  'organizationId',
  'status',
  'confirmPrivilegeChange',
  'password',
  'generatePassword',
];

const visible = (path: string) => ({
  list: LIST.includes(path),
  filter: FILTER.includes(path),
  show: SHOW.includes(path),
  edit: EDIT.includes(path),
});

/** Labels go through AdminJS's locale (properties have no label option in AdminJS 7). */
export const USER_PROPERTY_LABELS: Record<string, string> = {
  q: 'Search (name or e-mail)',
  roleGroup: 'Role',
  organizationId: 'Organization',
  lastLoginAt: 'Last Login',
  createdAt: 'Created',
  deletedAt: 'Deleted on',
  deleted: 'Deleted users only',
  mfaEnabled: 'MFA enabled',
  password: 'Initial password (optional)',
  generatePassword: 'Generate a password and e-mail it',
  confirmPrivilegeChange: 'Confirm raising the role',
};

/** The users resource's words in the portal: page titles that name the thing, actions, empty list. */
export const USERS_TRANSLATIONS = {
  properties: USER_PROPERTY_LABELS,
  actions: {
    list: 'Users',
    show: 'User details',
    edit: 'Edit user',
    new: 'New user',
    delete: 'Delete',
    purge: 'Delete permanently',
    resetPassword: 'Send password reset',
    activity: 'Activity log',
    exportCsv: 'Export CSV',
    impersonate: 'Impersonate',
  },
  messages: {
    noRecords: 'No users match these filters',
    noRecordsInResource: 'Clear the filters to see every user, or create one.',
  },
};

type RecordParams = { params: Record<string, unknown>; populated?: Record<string, RecordParams | null> } | undefined;
const paramsOf = (record: unknown) => (record as RecordParams)?.params ?? {};
const isDeleted = (record: unknown) => Boolean(paramsOf(record).deletedAt);
/** The user's organization, as AdminJS populates the reference (lists and record pages, before deciding actions). */
const organizationOf = (record: unknown) => (record as RecordParams)?.populated?.organizationId?.params ?? {};
/**
 * Impersonation can succeed only for a live, active user below platform admin who is not oneself, in
 * an organization that is not suspended (the service refuses the rest; the portal does not offer it).
 */
const impersonable = (record: unknown, adminId: unknown) => {
  const p = paramsOf(record);
  return (
    !p.deletedAt &&
    p.status === 'active' &&
    p.role !== 'ROLE_PLATFORM_ADMIN' &&
    p.id !== adminId &&
    organizationOf(record).status !== 'suspended'
  );
};

export function usersOptions(container: Container, components: PortalComponents): ResourceOptions {
  const { services, clock } = container;
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
      q: { isVisible: false }, // the quick search box above the grid
      name: { isTitle: true, isVisible: visible('name') },
      firstName: { isVisible: visible('firstName'), isRequired: true },
      lastName: { isVisible: visible('lastName'), isRequired: true },
      email: { isVisible: visible('email'), isRequired: true },
      phone: { isVisible: visible('phone') },
      role: {
        isVisible: visible('role'),
        isRequired: true,
        availableValues: ROLES.map((value) => ({ value, label: ROLE_LABELS[value] })),
        components: { list: components.UserBadge, show: components.UserBadge, edit: components.UserFormField },
      },
      roleGroup: {
        isVisible: visible('roleGroup'),
        availableValues: Object.entries(ROLE_FILTER_GROUPS).map(([value, g]) => ({ value, label: g.label })),
        components: { filter: components.MultiValueFilter },
      },
      organizationId: { type: 'reference', reference: 'organizations', isVisible: visible('organizationId') },
      status: {
        isVisible: visible('status'),
        availableValues: Object.entries(STATUS_LABELS).map(([value, label]) => ({ value, label })),
        components: {
          list: components.UserBadge,
          show: components.UserBadge,
          edit: components.UserFormField,
          filter: components.MultiValueFilter,
        },
      },
      // 'date': the filter's picker has no time box (a range is whole days); shown with time and zone
      lastLoginAt: {
        type: 'date',
        isVisible: visible('lastLoginAt'),
        components: { list: components.UserDate, show: components.UserDate },
      },
      createdAt: {
        type: 'date',
        isVisible: visible('createdAt'),
        components: { list: components.UserDate, show: components.UserDate },
      },
      deletedAt: {
        isVisible: visible('deletedAt'),
        components: { list: components.UserDate, show: components.UserDate },
      },
      deleted: { type: 'boolean', isVisible: visible('deleted') },
      mfaEnabled: { isVisible: visible('mfaEnabled') },
      password: { isVisible: { list: false, filter: false, show: false, edit: true } },
      generatePassword: { isVisible: { list: false, filter: false, show: false, edit: true } },
      confirmPrivilegeChange: { isVisible: { list: false, filter: false, show: false, edit: true } },
    },
    actions: {
      bulkDelete: { isAccessible: false },
      list: { showFilter: true, component: components.UsersList },
      // a soft-deleted user is read-only: no Edit, Impersonate, Delete or password reset, only Permanent delete
      edit: {
        isVisible: ({ record }) => !isDeleted(record),
        component: components.UserEdit,
        after: namedSuccess('User', 'email'),
      },
      new: {
        component: components.UserEdit,
        // a refused creation sends the form back to the browser: never with the typed password in it
        // (a created user's is cleared by the resource)
        after: async (response: ActionResponse) => {
          if (response.record?.params) response.record.params.password = null;
          return namedSuccess('User', 'email')(response);
        },
      },
      show: { component: components.UserShow },
      delete: {
        actionType: 'record',
        icon: 'Trash2',
        variant: 'danger',
        guard: undefined,
        // not on one's own page: the service refuses deleting oneself
        isVisible: ({ record, currentAdmin }) => !isDeleted(record) && paramsOf(record).id !== currentAdmin?.id,
        component: components.DeleteUser,
        handler: async (
          request: ActionRequest,
          _response: unknown,
          context: ActionContext,
        ): Promise<ActionResponse> => {
          const actor = await portalActor(context.currentAdmin);
          const record = context.record!.toJSON(context.currentAdmin);
          if (request.method === 'get') {
            const { associatedData } = await services.users.get(actor, recordId(request));
            return {
              record,
              associatedData,
              heirs: await heirsOf(recordId(request), record.params.organizationId as string | null),
            };
          }
          try {
            const transferTo = (request.payload?.transferTo as string | undefined) || undefined;
            const deleted = await services.userDeletion.softDelete(actor, recordId(request), { transferTo });
            const summary = deleted.warnings.length ? ` ${deleted.warnings.join(' ')}` : '';
            return {
              record,
              redirectUrl: context.h.resourceUrl({ resourceId: 'users' }),
              notice: { message: `Deleted ${deleted.user.email}.${summary}`, type: 'success' },
            };
          } catch (error) {
            return { record, notice: userNotice(error, clock.now()) };
          }
        },
      },
      purge: {
        actionType: 'record',
        icon: 'XOctagon',
        variant: 'danger',
        isVisible: ({ record }) => isDeleted(record),
        component: components.PurgeUser,
        handler: async (
          request: ActionRequest,
          _response: unknown,
          context: ActionContext,
        ): Promise<ActionResponse> => {
          const record = context.record!.toJSON(context.currentAdmin);
          if (request.method === 'get') return { record };
          try {
            const actor = await portalActor(context.currentAdmin);
            await services.userDeletion.purge(
              actor,
              recordId(request),
              (request.payload?.confirmEmail as string | undefined) ?? '',
            );
            return {
              record,
              redirectUrl: `${context.h.resourceUrl({ resourceId: 'users' })}?filters.deleted=true`,
              notice: { message: `Removed ${record.params.email} permanently.`, type: 'success' },
            };
          } catch (error) {
            return { record, notice: userNotice(error, clock.now()) };
          }
        },
      },
      resetPassword: {
        actionType: 'record',
        icon: 'Key',
        isVisible: ({ record }) => !isDeleted(record),
        guard:
          'Send this user an e-mail with a link to choose a new password? Their current password keeps working until they do.',
        // a page that asks, then POSTs: a GET (a link from another site, with the admin's cookie) sends nothing
        component: components.ConfirmAction,
        handler: async (
          request: ActionRequest,
          _response: unknown,
          context: ActionContext,
        ): Promise<ActionResponse> => {
          const record = context.record!.toJSON(context.currentAdmin);
          if (request.method !== 'post') return { record };
          try {
            const actor = await portalActor(context.currentAdmin);
            const sent = await services.passwords.requestReset(actor, recordId(request));
            return {
              record,
              notice: {
                message: `Password reset e-mail sent to ${record.params.email}; the link works until ${portalTime(sent.expiresAt)}.`,
                type: 'success',
              },
              // back to the user: the confirmation page stayed, its button ready to send another e-mail
              redirectUrl: context.h.recordActionUrl({ resourceId: 'users', recordId: record.id, actionName: 'show' }),
            };
          } catch (error) {
            return { record, notice: userNotice(error, clock.now()) };
          }
        },
      },
      activity: {
        actionType: 'record',
        icon: 'Activity',
        component: components.UserActivity,
        handler: async (
          request: ActionRequest,
          _response: unknown,
          context: ActionContext,
        ): Promise<ActionResponse> => {
          const record = context.record!.toJSON(context.currentAdmin);
          const actor = await portalActor(context.currentAdmin);
          const page = Math.max(1, Number(request.query?.page ?? 1) || 1);
          const entries = await services.activity.forUser(actor, recordId(request), {}, { page, itemsPerPage: 50 });
          // "By" names who acted (an administrator by name), as the audit log does
          const nameOf = await auditNames(
            container.sql,
            entries.data.flatMap((e) => [
              [e.actorType, e.actorId],
              ['user', e.impersonatorId],
            ]),
          );
          const named = entries.data.map((e) => ({
            ...e,
            actorName: nameOf(e.actorType, e.actorId) ?? null,
            impersonatorName: nameOf('user', e.impersonatorId) ?? null,
          }));
          return { record, entries: named, pagination: entries.pagination };
        },
      },
      impersonate: {
        actionType: 'record',
        icon: 'Eye',
        isVisible: ({ record, currentAdmin }) => impersonable(record, currentAdmin?.id),
        component: components.ImpersonateUser,
        handler: async (
          request: ActionRequest,
          _response: unknown,
          context: ActionContext,
        ): Promise<ActionResponse> => {
          const record = context.record!.toJSON(context.currentAdmin);
          if (request.method === 'get') return { record };
          try {
            const actor = await portalActor(context.currentAdmin);
            const mode = request.payload?.mode === 'act_as_user' ? 'act_as_user' : 'read_only';
            const started = await services.impersonation.start(actor, recordId(request), {
              mode,
              reason: (request.payload?.reason as string | undefined) || undefined,
            });
            return {
              record,
              impersonation: {
                token: started.token.token,
                expiresAt: started.token.expiresAt.toISOString(),
                redirectUrl: started.redirectUrl,
                mode,
              },
              notice: {
                message: `Impersonating ${record.params.email} (${mode === 'read_only' ? 'read-only' : 'acting as the user'}) until ${portalTime(started.token.expiresAt)}`,
                type: 'success',
              },
            };
          } catch (error) {
            return { record, notice: userNotice(error, clock.now()) };
          }
        },
      },
      // the list renders the one-click "Export CSV (n rows)" link itself; the action stays for old links
      exportCsv: {
        actionType: 'resource',
        icon: 'Download',
        isVisible: false,
        showInDrawer: true,
        component: components.ExportUsers,
        handler: async () => ({}),
      },
    },
  };
}

/** Who may receive a deleted user's data: the other active, live users of the same organization. */
async function heirsOf(userId: string, organizationId: string | null): Promise<Array<{ id: string; label: string }>> {
  if (!organizationId) return [];
  const users = await User.findAll({
    attributes: ['id', 'firstName', 'lastName', 'email'],
    where: { organizationId, status: 'active', id: { [Op.ne]: userId } },
    order: [
      ['firstName', 'ASC'],
      ['lastName', 'ASC'],
    ],
    limit: 500,
  });
  return users.map((u) => ({ id: u.id, label: `${u.firstName} ${u.lastName} (${u.email})` }));
}
