import { defineModule } from '../../shared/module-manifest.ts';
import { auditModule } from '../audit/index.ts';
import { ApiKey } from './api-key.model.ts';
import { apiKeyRoutes } from './api-key.routes.ts';
import { ApiKeyService } from './api-key.service.ts';

export const apiKeysModule = defineModule({
  name: 'api-keys',
  uses: [auditModule],
  models: { ApiKey },
  services: ({ platform: { db, sql, clock, config }, uses: { audit } }) => ({
    apiKeys: new ApiKeyService({ sequelize: db.sequelize, sql, clock, audit, appEnv: config.appEnv }),
  }),
  routes: {
    api:
      ({ services }) =>
      (router) =>
        apiKeyRoutes(router, services.apiKeys),
  },
  permissions: ['apiKeys:read', 'apiKeys:manage'],
  ownedUserData: [
    {
      type: 'api_keys',
      description: 'API keys created by the user (they stay active)',
      table: 'api_keys',
      column: 'created_by_user_id',
      transferable: true,
    },
  ],
});
