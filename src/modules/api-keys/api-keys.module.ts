import { defineModule } from '../../shared/module-manifest.ts';
import { ApiKey } from './api-key.model.ts';
import { apiKeyRoutes } from './api-key.routes.ts';

export const apiKeysModule = defineModule({
  name: 'api-keys',
  models: { ApiKey },
  routes: { api: ({ container }) => (router) => apiKeyRoutes(router, container.services.apiKeys) },
  permissions: ['apiKeys:read', 'apiKeys:manage'],
  ownedUserData: [{ type: 'api_keys', description: 'API keys created by the user (they stay active)', table: 'api_keys', column: 'created_by_user_id', transferable: true }],
});
