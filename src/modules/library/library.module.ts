import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { ResourceCategory } from './category.model.ts';
import { ResourceEntitlement } from './entitlement.model.ts';
import { resourceEvents } from './resource.domain-events.ts';
import { resourceRoutes } from './resource.routes.ts';
import { resourceUploadRoutes } from './resource-upload.routes.ts';
import { Resource } from './resource.model.ts';
import { ResourceVersion } from './resource-version.model.ts';
import { storageSweeperJob } from './storage-sweeper.job.ts';
import { thumbnailJob } from './thumbnails/thumbnail.job.ts';
import { thumbnailRoutes } from './thumbnails/thumbnail.routes.ts';
import { ThumbnailSubscriber } from './thumbnails/thumbnail.subscriber.ts';
import { resumableUploadRoutes } from './uploads/tus.routes.ts';
import { uploadExpiryJob } from './uploads/upload-expiry.job.ts';

export const libraryModule = defineModule({
  name: 'library',
  models: { Resource, ResourceVersion, ResourceCategory, ResourceEntitlement },
  associate: () => {
    Resource.hasMany(ResourceVersion, { as: 'versions', foreignKey: 'resourceId' });
    ResourceVersion.belongsTo(Resource, { as: 'resource', foreignKey: 'resourceId' });
  },
  events: resourceEvents,
  routes: {
    api: (context) => {
      const files = resourceRoutes(context);
      return (router) => {
        thumbnailRoutes(router, context.container.services.thumbnails, context.container.storage);
        files(router);
      };
    },
    uploads: (context) => {
      const files = resourceUploadRoutes(context);
      const { services, logger, config } = context.container;
      const resumable = resumableUploadRoutes(services.uploads, logger.child({ module: 'uploads' }), { corsOrigins: config.library.uploadCorsOrigins });
      return (uploads) => {
        files(uploads);
        resumable(uploads);
      };
    },
  },
  jobs: [
    bindJob(uploadExpiryJob, (c) => c.services.uploads),
    bindJob(thumbnailJob, (c) => c.services.thumbnails),
    bindJob(storageSweeperJob, (c) => ({ storage: c.storage, sql: c.sql, clock: c.clock, uploads: c.services.uploads, tempMaxAgeMinutes: c.config.library.tempMaxAgeMinutes })),
  ],
  subscribers: ({ queue, services }) => [new ThumbnailSubscriber({ queue }), services.resourceFiles.accessInvalidation()],
  permissions: ['resources:read', 'resources:write', 'categories:manage'],
  errors: ['resource_locked'],
  ownedUserData: [
    { type: 'resources', description: 'Library resources this user uploaded (they stay, without an uploader)', table: 'resources', column: 'created_by', transferable: true },
  ],
});
