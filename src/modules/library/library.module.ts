import { defineModule } from '../../shared/module-manifest.ts';
import { ResourceCategory } from './category.model.ts';
import { ResourceEntitlement } from './entitlement.model.ts';
import { resourceEvents } from './resource.domain-events.ts';
import { resourceRoutes } from './resource.routes.ts';
import { resourceUploadRoutes } from './resource-upload.routes.ts';
import { Resource } from './resource.model.ts';
import { ResourceVersion } from './resource-version.model.ts';

export const libraryModule = defineModule({
  name: 'library',
  models: { Resource, ResourceVersion, ResourceCategory, ResourceEntitlement },
  associate: () => {
    Resource.hasMany(ResourceVersion, { as: 'versions', foreignKey: 'resourceId' });
    ResourceVersion.belongsTo(Resource, { as: 'resource', foreignKey: 'resourceId' });
  },
  routes: { api: resourceRoutes, uploads: resourceUploadRoutes },
  events: resourceEvents,
  permissions: ['resources:read', 'resources:write', 'categories:manage'],
  errors: ['resource_locked'],
  ownedUserData: [
    { type: 'resources', description: 'Library resources this user uploaded (they stay, without an uploader)', table: 'resources', column: 'created_by', transferable: true },
  ],
});
