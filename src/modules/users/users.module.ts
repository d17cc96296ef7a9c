import { defineModule } from '../../shared/module-manifest.ts';
import { PasswordToken } from './password-token.model.ts';
import { User } from './user.model.ts';
import { passwordResetRoutes, userAdminRoutes } from './user.routes.ts';

export const usersModule = defineModule({
  name: 'users',
  models: { User, PasswordToken },
  routes: {
    api: ({ container: { services } }) => (router) => {
      passwordResetRoutes(router, services.passwords);
      userAdminRoutes(router, services.users, services.userDeletion, services.passwords);
    },
  },
  permissions: ['users:read', 'users:admin', 'profile:write'],
  errors: ['cannot_delete_self', 'email_taken', 'invalid_reset_token', 'confirmation_required'],
});
