// Every Sequelize model, initialised against one connection, with its associations. The models come
// from the module manifests (src/modules.ts); associations across modules are made here.
import type { Sequelize } from 'sequelize';
import { modules, type AppModule } from './modules.ts';
import { Organization } from './modules/organizations/organization.model.ts';
import { ApiKey } from './modules/api-keys/api-key.model.ts';
import { User } from './modules/users/user.model.ts';
import type { ModelsOf, ModuleManifest, UnionToIntersection } from './shared/module-manifest.ts';

type ModelClasses = UnionToIntersection<ModelsOf<AppModule>>;

export type Models = {
  [K in keyof ModelClasses]: ModelClasses[K] extends { initModel(sequelize: Sequelize): infer R } ? R : never;
};

export function initModels(sequelize: Sequelize): Models {
  const manifests: readonly ModuleManifest[] = modules;
  const models: Record<string, unknown> = {};
  for (const manifest of manifests) {
    for (const [name, model] of Object.entries(manifest.models ?? {})) {
      if (name in models) throw new Error(`Model ${name} is declared by two modules`);
      models[name] = model.initModel(sequelize);
    }
  }
  for (const manifest of manifests) manifest.associate?.();
  User.belongsTo(Organization, { as: 'organization', foreignKey: 'organizationId' });
  Organization.hasMany(User, { as: 'users', foreignKey: 'organizationId' });
  ApiKey.belongsTo(Organization, { as: 'organization', foreignKey: 'organizationId' });
  return models as Models;
}
