// Organizations' SSO connections in the Admin Portal, read through the model with the allow-listed
// columns (never the sealed client secret) and, on a record, the addresses we generate for it. Test,
// Enable and Disable call SsoConnectionService inside the connection's organization, so they are
// audited and announced (connection.activated / deactivated) exactly as through the API. Creating and
// editing connections stays with the API (/api/sso/connections), where the protocol checks the settings.
import type { ActionContext, ActionRequest, ActionResponse, BaseRecord, ResourceWithOptions } from 'adminjs';
import type { AppContext as Container } from '../../src/app-context.ts';
import type { SsoConnection } from '../../src/modules/sso/sso-connection.model.ts';
import type { PortalComponents } from '../components/index.ts';
import { portalActor } from '../portal-actor.ts';
import { noticeOf } from '../portal-errors.ts';
import { AllowListedResource } from './allow-listed.resource.ts';
import { PORTAL_PROPERTIES } from './portal-properties.ts';

/** Computed for one record from SsoConnectionService.urlsOf, not columns. */
const GENERATED = ['spEntityId', 'acsUrl', 'metadataUrl', 'redirectUri'] as const;

export const SSO_CONNECTION_TRANSLATIONS = {
  labels: { sso_connections: 'SSO connections' },
  actions: {
    list: 'SSO connections',
    show: 'SSO connection',
    testConnection: 'Test connection',
    enable: 'Enable',
    disable: 'Disable',
  },
  properties: {
    organizationId: 'Organization',
    domains: 'E-mail domains',
    groupRoles: 'Group → role',
    defaultRole: 'Default role',
    allowIdpInitiated: 'IdP-initiated login',
    createMembers: 'Creates members',
    lastTestedAt: 'Last tested',
    lastTestOk: 'Last test',
    lastTestDetail: 'Last test result',
    spEntityId: 'SP entity ID',
    acsUrl: 'ACS URL',
    metadataUrl: 'SP metadata URL',
    redirectUri: 'Redirect URI',
    createdAt: 'Created',
    updatedAt: 'Updated',
  },
};

export class SsoConnectionsResource extends AllowListedResource {
  constructor(
    model: Container['models']['SsoConnection'],
    private readonly urlsOf: (id: string) => Record<(typeof GENERATED)[number], string>,
  ) {
    super(
      model,
      PORTAL_PROPERTIES.sso_connections.filter((name) => !(GENERATED as readonly string[]).includes(name)),
    );
  }

  override async findOne(id: string): Promise<BaseRecord | null> {
    const record = await super.findOne(id);
    if (record) {
      const urls = this.urlsOf(String(record.id()));
      for (const name of GENERATED) record.params[name] = urls[name];
    }
    return record;
  }
}

type Command = 'test' | 'enable' | 'disable';

export function ssoConnectionResource(container: Container, components: PortalComponents): ResourceWithOptions {
  const { ssoConnections } = container.services;

  /** One service call as the admin inside the connection's organization, then the record and a notice. */
  const command =
    (name: Command) =>
    async (request: ActionRequest, _response: unknown, context: ActionContext): Promise<ActionResponse> => {
      const record = context.record!;
      if (request.method !== 'post') return { record: record.toJSON(context.currentAdmin) };
      const id = String(record.id());
      try {
        const actor = await portalActor(context.currentAdmin, String(record.params.organizationId));
        let notice: { message: string; type: 'success' | 'error' };
        if (name === 'test') {
          const { ok, detail } = await ssoConnections.test(actor, id);
          notice = { message: `${ok ? 'Test passed' : 'Test failed'}: ${detail}`, type: ok ? 'success' : 'error' };
        } else {
          const connection: SsoConnection = await ssoConnections[name](actor, id);
          notice = { message: `${connection.name} is ${connection.status}`, type: 'success' };
        }
        const fresh = await context.resource.findOne(id, context);
        return {
          record: (fresh ?? record).toJSON(context.currentAdmin),
          redirectUrl: context.h.recordActionUrl({ resourceId: 'sso_connections', recordId: id, actionName: 'show' }),
          notice,
        };
      } catch (error) {
        return { record: record.toJSON(context.currentAdmin), notice: noticeOf(error) };
      }
    };

  const json = { type: 'mixed' as const, components: { show: components.JsonValue } };
  return {
    resource: new SsoConnectionsResource(container.models.SsoConnection, (id) => ssoConnections.urlsOf(id)),
    options: {
      id: 'sso_connections',
      navigation: { name: 'Platform', icon: 'Database' },
      titleProperty: 'name',
      sort: { sortBy: 'createdAt', direction: 'desc' },
      listProperties: ['organizationId', 'name', 'protocol', 'status', 'domains', 'lastTestOk', 'lastTestDetail'],
      showProperties: [
        'organizationId',
        'name',
        'protocol',
        'status',
        'domains',
        'lastTestedAt',
        'lastTestOk',
        'lastTestDetail',
        'settings',
        ...GENERATED,
        'defaultRole',
        'groupRoles',
        'allowIdpInitiated',
        'createMembers',
        'createdAt',
        'updatedAt',
      ],
      filterProperties: ['organizationId', 'name', 'protocol', 'status', 'lastTestOk'],
      properties: {
        organizationId: { type: 'reference', reference: 'organizations' },
        settings: json,
        domains: { components: { list: components.TextList, show: components.TextList } },
        lastTestOk: { components: { list: components.TestResult, show: components.TestResult } },
        groupRoles: json,
        status: {
          description:
            'Connections are created and edited through the API (/api/sso/connections) by the organization’s ' +
            'admins; here they are tested, enabled and disabled. Enabling needs a passed test and an e-mail domain.',
        },
        ...Object.fromEntries(
          GENERATED.map((name) => [
            name,
            { type: 'string' as const, isVisible: { list: false, filter: false, show: true, edit: false } },
          ]),
        ),
      },
      actions: {
        new: { isAccessible: false },
        edit: { isAccessible: false },
        delete: { isAccessible: false },
        bulkDelete: { isAccessible: false },
        testConnection: {
          actionType: 'record',
          icon: 'Zap',
          component: components.ConfirmAction,
          guard: 'Test this connection now? The result is saved on the connection and in the audit log.',
          handler: command('test'),
        },
        enable: {
          actionType: 'record',
          icon: 'PlayCircle',
          component: components.ConfirmAction,
          guard: 'Enable this connection? Its users can then sign in with it.',
          isAccessible: ({ record }) => record?.params.status !== 'active',
          handler: command('enable'),
        },
        disable: {
          actionType: 'record',
          icon: 'PauseCircle',
          variant: 'danger',
          component: components.ConfirmAction,
          guard: 'Disable this connection? Sign-ins through it are refused at once.',
          isAccessible: ({ record }) => record?.params.status === 'active',
          handler: command('disable'),
        },
      },
    },
  };
}
