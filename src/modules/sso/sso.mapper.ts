import type { components } from '../../types/openapi.d.ts';
import type { SsoConnection } from './sso-connection.model.ts';
import type { ConnectionUrls } from './protocols/sso-protocol.ts';

type SsoConnectionDto = components['schemas']['SsoConnection'];

/** What events and the audit trail carry: who and what, never settings or secrets. */
export function toConnectionSnapshot(connection: SsoConnection): Record<string, unknown> {
  return {
    id: connection.id,
    organizationId: connection.organizationId,
    name: connection.name,
    protocol: connection.protocol,
    status: connection.status,
    domains: connection.domains,
  };
}

/** The wire shape (the spec leaves it "not shown"; openapi.yaml's SsoConnection). Secrets are write-only. */
export function toConnectionDto(connection: SsoConnection, urls: ConnectionUrls): SsoConnectionDto {
  return {
    id: connection.id,
    organizationId: connection.organizationId,
    name: connection.name,
    protocol: connection.protocol,
    status: connection.status,
    domains: connection.domains,
    settings: connection.settings as SsoConnectionDto['settings'],
    clientSecretSet: connection.secretSealed !== null,
    // only the addresses the connection's protocol gives an IdP administrator (a brokered one: none, the
    // identity service uses the platform's redirect URI); the others answered nothing there
    serviceProvider: {
      entityId: connection.protocol === 'saml' ? urls.spEntityId : null,
      acsUrl: connection.protocol === 'saml' ? urls.acsUrl : null,
      metadataUrl: connection.protocol === 'saml' ? urls.metadataUrl : null,
      redirectUri: connection.protocol === 'oidc' ? urls.redirectUri : null,
    },
    loginUrl: `${urls.redirectUri.replace(/\/auth\/callback\/idp$/, '')}/auth/sso?connection=${connection.id}`,
    groupRoles: connection.groupRoles,
    defaultRole: connection.defaultRole,
    allowIdpInitiated: connection.allowIdpInitiated,
    createMembers: connection.createMembers,
    lastTest: connection.lastTestedAt
      ? {
          at: connection.lastTestedAt.toISOString(),
          ok: connection.lastTestOk === true,
          detail: connection.lastTestDetail ?? '',
        }
      : null,
    createdAt: connection.createdAt.toISOString(),
    updatedAt: connection.updatedAt.toISOString(),
  };
}
