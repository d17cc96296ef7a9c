// Every Sequelize model, initialised against one connection, with its associations.
import type { Sequelize } from 'sequelize';
import { ApiKey } from './modules/api-keys/api-key.model.ts';
import { AuditEntry } from './modules/audit/audit-entry.model.ts';
import { Organization } from './modules/organizations/organization.model.ts';
import { User } from './modules/users/user.model.ts';

export function initModels(sequelize: Sequelize) {
  const models = {
    Organization: Organization.initModel(sequelize),
    User: User.initModel(sequelize),
    ApiKey: ApiKey.initModel(sequelize),
    AuditEntry: AuditEntry.initModel(sequelize),
  };
  User.belongsTo(Organization, { as: 'organization', foreignKey: 'organizationId' });
  Organization.hasMany(User, { as: 'users', foreignKey: 'organizationId' });
  ApiKey.belongsTo(Organization, { as: 'organization', foreignKey: 'organizationId' });
  return models;
}

export type Models = ReturnType<typeof initModels>;
