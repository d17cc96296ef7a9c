// The identity service's API (WorkOS's) through its official SDK, pointed at IDENTITY_SERVICE_API_URL
// (https://api.workos.com; a loopback stand-in in tests) with the platform settings' API key, which
// only the backend ever uses (the spec's authentication point 8).
import { WorkOS } from '@workos-inc/node';

export function identityServiceClient(apiUrl: URL, settings: { apiKey: string; clientId: string }): WorkOS {
  return new WorkOS(settings.apiKey, {
    clientId: settings.clientId,
    apiHostname: apiUrl.hostname,
    https: apiUrl.protocol === 'https:',
    ...(apiUrl.port ? { port: Number(apiUrl.port) } : {}),
  });
}
