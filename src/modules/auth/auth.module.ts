import { defineModule } from '../../shared/module-manifest.ts';
import { authRoutes } from './auth.routes.ts';

export const authModule = defineModule({
  name: 'auth',
  routes: { api: ({ container }) => (router) => authRoutes(router, container.services.auth) },
  errors: ['invalid_credentials', 'token_expired', 'invalid_mfa_code', 'account_inactive', 'mfa_required', 'mfa_already_enabled', 'login_throttled'],
});
