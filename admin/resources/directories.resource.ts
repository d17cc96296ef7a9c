// A directory's record page (Platform Settings > Directory Sync lists them and adds them): read through
// the model with the allow-listed columns, never tokenHash, plus the SCIM base URL and the users/groups
// counts. Rotate token and Revoke token call DirectoryService (platform admins, audited). A rotated
// token travels once, in the POST's answer to the component that shows it: never in the record, a
// redirect or a notice.
import type { ActionContext, ActionRequest, ActionResponse, BaseRecord, ResourceWithOptions } from 'adminjs';
import type { AppContext as Container } from '../../src/app-context.ts';
import type { DirectoryCounts } from '../../src/modules/directory/directory.service.ts';
import type { PortalComponents } from '../components/index.ts';
import { portalActor } from '../portal-actor.ts';
import { noticeOf } from '../portal-errors.ts';
import { AllowListedResource } from './allow-listed.resource.ts';
import { PORTAL_PROPERTIES } from './portal-properties.ts';

/** Computed, not columns. */
const COMPUTED = ['scimUrl', 'userCount', 'groupCount'] as const;

export const DIRECTORY_TRANSLATIONS = {
  labels: { directories: 'Directories' },
  actions: { list: 'Directories', show: 'Directory', rotateToken: 'Rotate token', revokeToken: 'Revoke token' },
  properties: {
    organizationId: 'Organization',
    externalId: 'Identity service directory ID',
    scimUrl: 'SCIM base URL',
    tokenPrefix: 'SCIM token',
    tokenCreatedAt: 'Token created',
    userCount: 'Users',
    groupCount: 'Groups',
    groupRoles: 'Group → role',
    defaultRole: 'Role without a mapped group',
    hardDelete: 'Hard delete',
    sendWelcome: 'Welcome e-mail',
    lastSyncAt: 'Last sync',
    lastError: 'Last error',
    lastErrorAt: 'Last error at',
    createdAt: 'Created',
    updatedAt: 'Updated',
  },
};

export class DirectoriesResource extends AllowListedResource {
  constructor(
    model: Container['models']['Directory'],
    private readonly scimUrl: string,
    private readonly counts: (ids: string[]) => Promise<Map<string, DirectoryCounts>>,
  ) {
    super(
      model,
      PORTAL_PROPERTIES.directories.filter((name) => !(COMPUTED as readonly string[]).includes(name)),
    );
  }

  override async find(...args: Parameters<AllowListedResource['find']>): Promise<BaseRecord[]> {
    return this.withComputed(await super.find(...args));
  }

  override async findOne(id: string): Promise<BaseRecord | null> {
    const record = await super.findOne(id);
    return record && (await this.withComputed([record]))[0]!;
  }

  /** One query for the page's counts. */
  private async withComputed(records: BaseRecord[]): Promise<BaseRecord[]> {
    const counts = records.length ? await this.counts(records.map((r) => String(r.id()))) : new Map();
    for (const record of records) {
      const count = counts.get(String(record.id()));
      Object.assign(record.params, { scimUrl: this.scimUrl, userCount: count?.users, groupCount: count?.groups });
    }
    return records;
  }
}

export function directoriesResource(container: Container, components: PortalComponents): ResourceWithOptions {
  const { directories } = container.services;
  const scimUrl = `${container.config.baseUrl}/scim/v2`;

  /** The service call on POST only (a GET from another site must not act); the new token in the answer. */
  const command =
    (name: 'rotate' | 'revoke') =>
    async (request: ActionRequest, _response: unknown, context: ActionContext): Promise<ActionResponse> => {
      const record = context.record!;
      if (request.method !== 'post') return { record: record.toJSON(context.currentAdmin) };
      const id = String(record.id());
      try {
        const actor = await portalActor(context.currentAdmin);
        const fresh = async () =>
          ((await context.resource.findOne(id, context)) ?? record).toJSON(context.currentAdmin);
        if (name === 'rotate') {
          const { token } = await directories.rotateToken(actor, id);
          return { record: await fresh(), token, scimUrl };
        }
        const directory = await directories.revokeToken(actor, id);
        return {
          record: await fresh(),
          redirectUrl: context.h.recordActionUrl({ resourceId: 'directories', recordId: id, actionName: 'show' }),
          notice: { message: `The SCIM token of ${directory.name} is revoked`, type: 'success' },
        };
      } catch (error) {
        return { record: record.toJSON(context.currentAdmin), notice: noticeOf(error) };
      }
    };

  const value = { components: { list: components.DirectoryValue, show: components.DirectoryValue } };
  const computed = { type: 'string' as const, isVisible: { list: false, filter: false, show: true, edit: false } };
  return {
    resource: new DirectoriesResource(container.models.Directory, scimUrl, (ids) => directories.counts(ids)),
    options: {
      id: 'directories',
      // reached from Platform Settings > Directory Sync (a page), not the sidebar's resources
      navigation: false,
      titleProperty: 'name',
      sort: { sortBy: 'createdAt', direction: 'desc' },
      listProperties: ['organizationId', 'name', 'provider', 'status', 'tokenPrefix', 'lastSyncAt', 'lastError'],
      showProperties: [
        'organizationId',
        'name',
        'provider',
        'externalId',
        'status',
        'scimUrl',
        'tokenPrefix',
        'tokenCreatedAt',
        'userCount',
        'groupCount',
        'lastSyncAt',
        'lastError',
        'lastErrorAt',
        'groupRoles',
        'defaultRole',
        'hardDelete',
        'sendWelcome',
        'createdAt',
        'updatedAt',
      ],
      filterProperties: ['organizationId', 'name', 'provider', 'status'],
      properties: {
        organizationId: { type: 'reference', reference: 'organizations' },
        scimUrl: { ...computed, ...value },
        userCount: { ...computed, type: 'number' },
        groupCount: { ...computed, type: 'number' },
        ...Object.fromEntries(
          [
            'provider',
            'status',
            'externalId',
            'tokenPrefix',
            'lastSyncAt',
            'lastError',
            'lastErrorAt',
            'groupRoles',
            'defaultRole',
            'hardDelete',
            'sendWelcome',
          ].map((name) => [name, value]),
        ),
      },
      actions: {
        new: { isAccessible: false },
        edit: { isAccessible: false },
        delete: { isAccessible: false },
        bulkDelete: { isAccessible: false },
        rotateToken: {
          actionType: 'record',
          icon: 'RefreshCw',
          component: components.DirectoryToken,
          guard:
            'Issue a new SCIM token? The current one, if any, stops working at once: paste the new one into ' +
            'the identity provider’s provisioning settings.',
          handler: command('rotate'),
        },
        revokeToken: {
          actionType: 'record',
          icon: 'XCircle',
          variant: 'danger',
          component: components.DirectoryToken,
          guard: 'Revoke the SCIM token? Provisioning requests are refused until a new token is issued.',
          isAccessible: ({ record }) => Boolean(record?.params.tokenPrefix),
          handler: command('revoke'),
        },
      },
    },
  };
}
