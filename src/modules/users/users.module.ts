import { defineModule } from '../../shared/module-manifest.ts';
import { auditModule } from '../audit/index.ts';
import { mailModule } from '../mail/index.ts';
import { PasswordResetService } from './password-reset.service.ts';
import { PasswordToken } from './password-token.model.ts';
import { UserAdminService } from './user-admin.service.ts';
import { UserDeletionService } from './user-deletion.service.ts';
import { UserOwnership } from './user-ownership.ts';
import { User } from './user.model.ts';
import { passwordResetRoutes, userAdminRoutes } from './user.routes.ts';

export const usersModule = defineModule({
  name: 'users',
  uses: [auditModule, mailModule],
  models: { User, PasswordToken },
  services: ({ platform: { db, clock, config, ownedUserData }, uses: { audit, mail } }) => {
    const { sequelize } = db;
    const passwords = new PasswordResetService({ sequelize, clock, audit, mail, config });
    const ownership = new UserOwnership(sequelize, ownedUserData);
    return {
      passwords,
      users: new UserAdminService({ sequelize, audit, mail, passwords, ownership, config }),
      userDeletion: new UserDeletionService({ sequelize, clock, audit, ownership }),
    };
  },
  routes: {
    api:
      ({ services }) =>
      (router) => {
        passwordResetRoutes(router, services.passwords);
        userAdminRoutes(router, services.users, services.userDeletion, services.passwords);
      },
  },
  permissions: ['users:read', 'users:admin', 'profile:write'],
  errors: ['cannot_delete_self', 'email_taken', 'invalid_reset_token', 'confirmation_required'],
});
