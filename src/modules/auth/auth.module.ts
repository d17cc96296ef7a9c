import { defineModule } from '../../shared/module-manifest.ts';
import { apiKeysModule } from '../api-keys/index.ts';
import { auditModule } from '../audit/index.ts';
import { authRoutes } from './auth.routes.ts';
import { AuthService } from './auth.service.ts';
import { invalidateCredentialsOnChange } from './credential-invalidation.ts';
import { TokenService } from './token.service.ts';

export const authModule = defineModule({
  name: 'auth',
  uses: [auditModule, apiKeysModule],
  services: ({ platform: { config, clock, db, sql, deriveKey }, uses: { audit, apiKeys } }) => {
    const tokens = new TokenService(deriveKey('jwt'), clock, config.jwtTtlSeconds);
    const auth = new AuthService({
      config,
      clock,
      tokens,
      apiKeys,
      audit,
      secretsKey: deriveKey('secrets'),
      sequelize: db.sequelize,
      sql,
    });
    invalidateCredentialsOnChange({
      forgetUser: (id) => auth.forgetUser(id),
      forgetOrganizations: () => {
        auth.forgetUser();
        apiKeys.forgetAll();
      },
    });
    return { tokens, auth };
  },
  routes: {
    api:
      ({ services }) =>
      (router) =>
        authRoutes(router, services.auth),
  },
  errors: [
    'invalid_credentials',
    'token_expired',
    'invalid_mfa_code',
    'account_inactive',
    'mfa_required',
    'mfa_already_enabled',
    'login_throttled',
  ],
});
