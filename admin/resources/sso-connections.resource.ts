// Organizations' SSO connections in the Admin Portal, read through the model with the allow-listed
// columns (never the sealed client secret) and, on a record, the addresses we generate for it. Test,
// Enable and Disable call SsoConnectionService inside the connection's organization, so they are
// audited and announced (connection.activated / deactivated) exactly as through the API. "New SSO
// connection" and "Edit" (SsoConnectionForm) call its create / update the same way, in the chosen
// organization, so the protocol checks the settings as it does for the API; the sealed secret is never
// sent to the browser (the OIDC client secret is write-only: empty keeps the saved one).
import type { ActionContext, ActionRequest, ActionResponse, BaseRecord, ResourceWithOptions } from 'adminjs';
import type { AppContext as Container } from '../../src/app-context.ts';
import { SSO_ROLES, type SsoConnection, type SsoRole } from '../../src/modules/sso/sso-connection.model.ts';
import type { ConnectionChanges, ConnectionInput } from '../../src/modules/sso/sso-connection.service.ts';
import type { SsoProtocolKind } from '../../src/modules/sso/protocols/sso-protocol.ts';
import { ROLE_LABELS } from '../../src/modules/users/user.labels.ts';
import { errors, type FieldError } from '../../src/shared/errors.ts';
import type { PortalComponents } from '../components/index.ts';
import { PROTOCOL_NAMES } from '../components/sso-protocols.ts';
import { portalActor } from '../portal-actor.ts';
import { formRefusalOf, noticeOf } from '../portal-errors.ts';
import { AllowListedResource } from './allow-listed.resource.ts';
import { PORTAL_PROPERTIES } from './portal-properties.ts';

/** Computed for one record from SsoConnectionService.urlsOf, not columns. */
const GENERATED = ['spEntityId', 'acsUrl', 'metadataUrl', 'redirectUri'] as const;
type Generated = (typeof GENERATED)[number];
/**
 * The addresses the organization's IdP admin is given, by protocol. A brokered connection has none of
 * its own: the identity service returns people to the redirect URI saved under Integrations.
 */
const ADDRESSES_OF: Record<SsoProtocolKind, readonly Generated[]> = {
  saml: ['spEntityId', 'acsUrl', 'metadataUrl'],
  oidc: ['redirectUri'],
  identity_service: [],
};

/** The form's names, checked here against the service's protocols. */
const PROTOCOL_LABELS: Record<SsoProtocolKind, string> = PROTOCOL_NAMES;
const PROTOCOLS = Object.keys(PROTOCOL_LABELS) as SsoProtocolKind[];
const ROLE_NAMES = Object.fromEntries(SSO_ROLES.map((role) => [role, ROLE_LABELS[role]]));

export const SSO_CONNECTION_TRANSLATIONS = {
  // a stored code's name (AdminJS looks up labels.<property>.<code> for a property with availableValues)
  labels: { sso_connections: 'SSO connections', protocol: PROTOCOL_LABELS, defaultRole: ROLE_NAMES },
  actions: {
    list: 'SSO connections',
    show: 'SSO connection',
    newConnection: 'New SSO connection',
    editConnection: 'Edit',
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
    private readonly urlsOf: (id: string) => Record<Generated, string>,
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
      for (const name of ADDRESSES_OF[record.params.protocol as SsoProtocolKind]) record.params[name] = urls[name];
    }
    return record;
  }
}

type Command = 'test' | 'enable' | 'disable';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the form shows of a connection: never its sealed secret, only whether one is saved. */
export interface SsoConnectionFormData {
  id: string;
  organizationId: string;
  name: string;
  protocol: SsoProtocolKind;
  settings: Record<string, string>;
  hasClientSecret: boolean;
  domains: string[];
  defaultRole: SsoRole;
  allowIdpInitiated: boolean;
  createMembers: boolean;
}

function formDataOf(connection: SsoConnection): SsoConnectionFormData {
  const settings = Object.fromEntries(
    Object.entries((connection.settings ?? {}) as Record<string, unknown>).filter(([, v]) => typeof v === 'string'),
  ) as Record<string, string>;
  return {
    id: connection.id,
    organizationId: connection.organizationId,
    name: connection.name,
    protocol: connection.protocol,
    settings,
    hasClientSecret: Boolean(connection.secretSealed),
    domains: connection.domains,
    defaultRole: connection.defaultRole,
    allowIdpInitiated: connection.allowIdpInitiated,
    createMembers: connection.createMembers,
  };
}

/** The form's strings -> the service's input (protocol given for a new connection); form problems by field. */
function formInputOf(payload: Record<string, unknown> | undefined, protocol: SsoProtocolKind | null) {
  const text = (name: string) => (typeof payload?.[name] === 'string' ? (payload[name] as string).trim() : '');
  const flag = (name: string) => payload?.[name] === true || payload?.[name] === 'true';
  const problems: FieldError[] = [];
  const kind = protocol ?? (text('protocol') as SsoProtocolKind);
  if (!protocol) {
    if (!UUID.test(text('organizationId')))
      problems.push({ field: 'organizationId', message: 'choose an organization' });
    if (!PROTOCOLS.includes(kind)) problems.push({ field: 'protocol', message: 'choose a protocol' });
  }
  if (!text('name')) problems.push({ field: 'name', message: 'is required' });
  else if (text('name').length > 200) problems.push({ field: 'name', message: 'is longer than 200 characters' });
  const defaultRole = text('defaultRole') as SsoRole;
  if (!(SSO_ROLES as readonly string[]).includes(defaultRole))
    problems.push({ field: 'defaultRole', message: 'choose a role' });
  if (problems.length) throw errors.validation(problems);
  const optional = (name: string) => text(name) || undefined;
  const settings =
    kind === 'saml'
      ? {
          idpEntityId: text('settings.idpEntityId'),
          idpSsoUrl: text('settings.idpSsoUrl'),
          idpCertificate: text('settings.idpCertificate'),
          ...(optional('settings.idpMetadataUrl') ? { idpMetadataUrl: text('settings.idpMetadataUrl') } : {}),
        }
      : kind === 'oidc'
        ? { clientId: text('settings.clientId'), discoveryUrl: text('settings.discoveryUrl') }
        : { connection: optional('settings.connection') };
  const changes: ConnectionChanges = {
    name: text('name'),
    settings: settings as ConnectionInput['settings'],
    // the secret is write-only: an empty input keeps the saved one
    ...(kind === 'oidc' && text('clientSecret') ? { clientSecret: text('clientSecret') } : {}),
    domains: text('domains')
      .split(/[\s,]+/)
      .filter(Boolean),
    defaultRole,
    allowIdpInitiated: flag('allowIdpInitiated'),
    createMembers: flag('createMembers'),
  };
  return { organizationId: text('organizationId'), protocol: kind, changes };
}

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

  const showUrl = (context: ActionContext, id: string) =>
    context.h.recordActionUrl({ resourceId: 'sso_connections', recordId: id, actionName: 'show' });

  /** "New SSO connection": SsoConnectionService.create as the admin inside the chosen organization. */
  const create = async (request: ActionRequest, _response: unknown, context: ActionContext) => {
    const admin = await portalActor(context.currentAdmin);
    if (request.method !== 'post') return {};
    try {
      const { organizationId, protocol, changes } = formInputOf(request.payload, null);
      const actor = { ...admin, organizationId };
      const connection = await ssoConnections.create(actor, { ...changes, protocol } as ConnectionInput);
      return {
        connection: formDataOf(connection),
        redirectUrl: showUrl(context, connection.id),
        notice: { message: `SSO connection ${connection.name} created`, type: 'success' as const },
      };
    } catch (error) {
      return formRefusalOf(error);
    }
  };

  /** "Edit": SsoConnectionService.update inside the connection's organization; the protocol stays. */
  const edit = async (request: ActionRequest, _response: unknown, context: ActionContext) => {
    const record = context.record!;
    const id = String(record.id());
    const actor = await portalActor(context.currentAdmin, String(record.params.organizationId));
    const current = await ssoConnections.get(actor, id);
    const answer = { record: record.toJSON(context.currentAdmin), connection: formDataOf(current) };
    if (request.method !== 'post') return answer;
    try {
      const { changes } = formInputOf(request.payload, current.protocol);
      const connection = await ssoConnections.update(actor, id, changes);
      return {
        ...answer,
        connection: formDataOf(connection),
        redirectUrl: showUrl(context, id),
        notice: { message: `SSO connection ${connection.name} saved`, type: 'success' as const },
      };
    } catch (error) {
      return { ...answer, ...formRefusalOf(error) };
    }
  };

  const readable = { type: 'mixed' as const, components: { show: components.SsoValue } };
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
        settings: readable,
        domains: { components: { list: components.TextList, show: components.TextList } },
        lastTestOk: { components: { list: components.TestResult, show: components.TestResult } },
        lastTestedAt: { components: { show: components.SsoValue } },
        lastTestDetail: { components: { show: components.SsoValue } },
        groupRoles: readable,
        // shown by their names (labels above), filtered from a list of them
        protocol: { availableValues: PROTOCOLS.map((value) => ({ value, label: value })) },
        defaultRole: { availableValues: SSO_ROLES.map((value) => ({ value, label: value })) },
        status: {
          components: { list: components.SsoValue, show: components.SsoValue },
          description:
            'Connections are created here (New SSO connection) or through the API (/api/sso/connections) by the ' +
            'organization’s admins, then edited, tested, enabled and disabled. Enabling needs a passed test and an ' +
            'e-mail domain; changed settings need a new test.',
        },
        ...Object.fromEntries(
          GENERATED.map((name) => [
            name,
            {
              type: 'string' as const,
              isVisible: { list: false, filter: false, show: true, edit: false },
              components: { show: components.OptionalValue },
            },
          ]),
        ),
      },
      actions: {
        new: { isAccessible: false },
        edit: { isAccessible: false },
        delete: { isAccessible: false },
        bulkDelete: { isAccessible: false },
        newConnection: {
          actionType: 'resource',
          icon: 'Plus',
          component: components.SsoConnectionForm,
          handler: create,
        },
        editConnection: {
          actionType: 'record',
          icon: 'Edit',
          component: components.SsoConnectionForm,
          handler: edit,
        },
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
