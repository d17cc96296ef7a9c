import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { auditModule } from '../audit/index.ts';
import { ResourceCategory } from './category.model.ts';
import { ResourceEntitlement } from './entitlement.model.ts';
import { ResourceFileService } from './resource-files.service.ts';
import { resourceUploadRoutes } from './resource-upload.routes.ts';
import { ResourceVersion } from './resource-version.model.ts';
import { resourceEvents } from './resource.domain-events.ts';
import { Resource } from './resource.model.ts';
import { resourceRoutes } from './resource.routes.ts';
import { ResourceService } from './resource.service.ts';
import { storageSweeperJob } from './storage-sweeper.job.ts';
import { thumbnailJob } from './thumbnails/thumbnail.job.ts';
import { ThumbnailRenderer, ffmpegLocator } from './thumbnails/thumbnail.renderer.ts';
import { thumbnailRoutes } from './thumbnails/thumbnail.routes.ts';
import { ThumbnailService } from './thumbnails/thumbnail.service.ts';
import { ThumbnailSubscriber } from './thumbnails/thumbnail.subscriber.ts';
import { UploadRepository } from './uploads/upload.repository.ts';
import { UploadService } from './uploads/upload.service.ts';
import { resumableUploadRoutes } from './uploads/tus.routes.ts';
import { uploadExpiryJob } from './uploads/upload-expiry.job.ts';

export const libraryModule = defineModule({
  name: 'library',
  uses: [auditModule],
  models: { Resource, ResourceVersion, ResourceCategory, ResourceEntitlement },
  associate: () => {
    Resource.hasMany(ResourceVersion, { as: 'versions', foreignKey: 'resourceId' });
    ResourceVersion.belongsTo(Resource, { as: 'resource', foreignKey: 'resourceId' });
  },
  events: resourceEvents,
  services: ({ platform, uses: { audit } }) => {
    const { db, sql, clock, storage, logger, config, domainEvents } = platform;
    // resumable uploads: the resource service takes the finished ones (POST /api/resources {uploadId})
    const uploads = new UploadService({
      repository: new UploadRepository(sql),
      storage,
      clock,
      logger: logger.child({ module: 'uploads' }),
      settings: config.library,
    });
    return {
      uploads,
      /** The library's writes: create, update (new versions), delete. */
      resources: new ResourceService({
        sequelize: db.sequelize,
        sql,
        storage,
        audit,
        events: domainEvents,
        clock,
        logger: logger.child({ module: 'library' }),
        uploads,
      }),
      /** The library's files for reading: download, any version, the version list, download counts. */
      resourceFiles: new ResourceFileService({ sql, clock }),
      /** Resource thumbnails (made by the library.thumbnail job) and featured images, served to readers. */
      thumbnails: new ThumbnailService({
        sql,
        storage,
        renderer: new ThumbnailRenderer(ffmpegLocator(config.ai.ffmpegPath)),
        logger: logger.child({ module: 'thumbnails' }),
      }),
    };
  },
  routes: {
    api: ({ services, platform: { storage } }) => {
      const files = resourceRoutes({ services, storage });
      return (router) => {
        thumbnailRoutes(router, services.thumbnails, storage);
        files(router);
      };
    },
    uploads: ({ services, platform: { storage, logger, config } }) => {
      const files = resourceUploadRoutes({ services, storage, maxFileBytes: config.library.maxFileBytes });
      const resumable = resumableUploadRoutes(services.uploads, logger.child({ module: 'uploads' }), {
        corsOrigins: config.library.uploadCorsOrigins,
      });
      return (uploads) => {
        files(uploads);
        resumable(uploads);
      };
    },
  },
  jobs: [uploadExpiryJob, thumbnailJob, storageSweeperJob],
  handlers: ({ services, platform: { storage, sql, clock, config } }) => [
    bindJob(uploadExpiryJob, services.uploads),
    bindJob(thumbnailJob, services.thumbnails),
    bindJob(storageSweeperJob, {
      storage,
      sql,
      clock,
      uploads: services.uploads,
      tempMaxAgeMinutes: config.library.tempMaxAgeMinutes,
      uploadExpiryHours: config.library.uploadExpiryHours,
    }),
  ],
  subscribers: ({ services, platform: { queue } }) => [
    new ThumbnailSubscriber({ queue }),
    services.resourceFiles.accessInvalidation(),
  ],
  permissions: ['resources:read', 'resources:write', 'categories:manage'],
  errors: ['resource_locked'],
  ownedUserData: [
    {
      type: 'resources',
      description: 'Library resources this user uploaded (they stay, without an uploader)',
      table: 'resources',
      column: 'created_by',
      transferable: true,
    },
  ],
});
