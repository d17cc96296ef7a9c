// The spec's SSO flow: the identity service (WorkOS's API, through its official SDK) brokers the
// SAML or OIDC conversation with the IdP. We ask it for the authorization URL, it calls back with a
// code, and we exchange the code for the profile server side with the platform's API key (never sent
// to a browser: the spec's authentication point 8).
import { WorkOS } from '@workos-inc/node';
import { AppError, errors } from '../../../shared/errors.ts';
import type { IdentityServiceSettings } from '../identity-service-settings.service.ts';
import { profileFromClaims, type SsoProfile } from '../sso-claims.ts';
import type { BrokeredSettings, CallbackInput, LoginStart, ProtocolConnection, SsoProtocol } from './sso-protocol.ts';

export interface BrokeredProtocolOptions {
  /** The identity service's API (https://api.workos.com; a loopback stand-in in tests). */
  apiUrl: URL;
  settings: () => Promise<IdentityServiceSettings | null>;
}

const unusable = (detail: string) => new AppError('invalid_connection', detail);

export class BrokeredProtocol implements SsoProtocol<'identity_service'> {
  constructor(private readonly options: BrokeredProtocolOptions) {}

  async prepare(settings: BrokeredSettings): Promise<BrokeredSettings> {
    const connection = settings.connection?.trim() || undefined;
    const organization = settings.organization?.trim() || undefined;
    if (!connection && !organization)
      throw errors.validation([
        { field: 'settings.connection', message: "give the identity service's connection id or organization id" },
      ]);
    return { ...(connection ? { connection } : {}), ...(organization ? { organization } : {}) };
  }

  async test(connection: ProtocolConnection<'identity_service'>): Promise<{ ok: boolean; detail: string }> {
    const platform = await this.options.settings();
    if (!platform)
      return { ok: false, detail: 'The identity service is not configured (Admin Portal > Platform Settings)' };
    const { connection: id } = connection.settings;
    if (!id) return { ok: true, detail: 'Routed by the identity service organization; nothing to look up' };
    try {
      const found = await this.client(platform).sso.getConnection(id);
      return {
        ok: found.state === 'active',
        detail: `${found.name} (${found.type}) is ${found.state} at the identity service`,
      };
    } catch (error) {
      return { ok: false, detail: `The identity service did not answer for ${id}: ${(error as Error).message}` };
    }
  }

  async begin(connection: ProtocolConnection<'identity_service'>, state: string): Promise<LoginStart> {
    const platform = await this.configured();
    const { connection: id, organization } = connection.settings;
    const redirectUrl = this.client(platform).sso.getAuthorizationUrl({
      clientId: platform.clientId,
      redirectUri: platform.redirectUri,
      state,
      ...(id ? { connection: id } : { organization: organization! }),
    });
    return { redirectUrl, secrets: {} };
  }

  async complete(connection: ProtocolConnection<'identity_service'>, input: CallbackInput): Promise<SsoProfile> {
    const platform = await this.configured();
    const code = input.url.searchParams.get('code');
    if (!code) throw new AppError('sso_login_failed', 'The identity service sent no code');
    let profile: Awaited<ReturnType<WorkOS['sso']['getProfileAndToken']>>['profile'];
    try {
      ({ profile } = await this.client(platform).sso.getProfileAndToken({ clientId: platform.clientId, code }));
    } catch (error) {
      throw new AppError('sso_login_failed', `The identity service refused the code: ${(error as Error).message}`);
    }
    // The code names the connection it was issued for: a code of another connection (or another
    // organization at the identity service) never signs anyone in here.
    const { connection: id, organization } = connection.settings;
    if ((id && profile.connectionId !== id) || (organization && profile.organizationId !== organization))
      throw new AppError('sso_login_failed', 'The profile belongs to another connection');
    return profileFromClaims(profile.idpId || profile.id, {
      ...profile.rawAttributes,
      email: profile.email,
      given_name: profile.firstName,
      family_name: profile.lastName,
      ...(profile.groups ? { groups: profile.groups } : {}),
    });
  }

  private async configured(): Promise<IdentityServiceSettings> {
    const platform = await this.options.settings();
    if (!platform) throw unusable('The identity service is not configured');
    return platform;
  }

  private client(platform: IdentityServiceSettings): WorkOS {
    const { apiUrl } = this.options;
    return new WorkOS(platform.apiKey, {
      clientId: platform.clientId,
      apiHostname: apiUrl.hostname,
      https: apiUrl.protocol === 'https:',
      ...(apiUrl.port ? { port: Number(apiUrl.port) } : {}),
    });
  }
}
