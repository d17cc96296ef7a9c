// Platform Settings > Integrations: the identity service's settings (API key, client ID, redirect URI,
// webhook secret, default connection). An AdminJS page: GET answers the service's view (secrets only as
// their last four characters), POST saves through IdentityServiceSettingsService (validated, audited).
// A refusal comes back as field messages and a notice, as AdminJS shows a record form's.
import type { PageHandler } from 'adminjs';
import type { AppContext as Container } from '../../src/app-context.ts';
import type {
  IdentityServiceSettingsInput,
  IdentityServiceSettingsView,
} from '../../src/modules/sso/identity-service-settings.service.ts';
import { portalActor } from '../portal-actor.ts';
import { formRefusalOf } from '../portal-errors.ts';

export const IDENTITY_SERVICE_PAGE = 'integrations';

export interface IdentityServicePageData {
  settings: IdentityServiceSettingsView;
  errors?: Record<string, string>;
  notice?: { message: string; type: 'success' | 'error' };
}

const FIELDS = ['apiKey', 'clientId', 'redirectUri', 'webhookSecret', 'defaultConnection'] as const;

/** The form's strings -> the service's change: an empty secret keeps the saved one, an empty default clears it. */
function inputOf(payload: Record<string, unknown> | undefined): IdentityServiceSettingsInput {
  const value = (name: (typeof FIELDS)[number]) =>
    typeof payload?.[name] === 'string' ? (payload[name] as string).trim() : undefined;
  return {
    apiKey: value('apiKey') || undefined,
    webhookSecret: value('webhookSecret') || undefined,
    clientId: value('clientId'),
    redirectUri: value('redirectUri'),
    defaultConnection: value('defaultConnection'),
  };
}

export function identityServicePage(container: Container, component: string) {
  const service = container.services.identityServiceSettings;
  const handler: PageHandler = async (request, _response, context): Promise<IdentityServicePageData> => {
    const actor = await portalActor(context.currentAdmin);
    if (request.method !== 'post') return { settings: await service.view(actor) };
    try {
      const settings = await service.save(actor, inputOf(request.payload));
      return { settings, notice: { message: 'Identity service settings saved', type: 'success' } };
    } catch (error) {
      const refusal = formRefusalOf(error);
      return { settings: await service.view(actor), ...refusal };
    }
  };
  return { component, icon: 'Settings', handler };
}
