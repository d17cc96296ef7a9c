import { defineModule } from '../../shared/module-manifest.ts';
import { auditModule } from '../audit/index.ts';
import { libraryModule } from '../library/index.ts';
import { catalogRoutes } from './catalog.routes.ts';
import { ResourceCatalogService } from './catalog.service.ts';
import { categoryIconApiRoutes, categoryIconUploadRoutes } from './category-icon.routes.ts';
import { CategoryIconService } from './category-icon.service.ts';
import { ResourceCategoryService } from './category.service.ts';
import { ResourceEntitlementService } from './entitlement.service.ts';
import { publicCatalogueRoutes } from './public-catalogue.routes.ts';
import { PublicCatalogueService } from './public-catalogue.service.ts';

/**
 * The library as readers see it: list and search, details, categories, entitlements and the public
 * catalogue. Models and the access policy are the library module's (foundation).
 */
export const resourceCatalogModule = defineModule({
  name: 'resource-catalog',
  uses: [auditModule, libraryModule],
  services: ({ platform: { db, sql, clock, storage, logger, domainEvents, deriveKey }, uses: { audit } }) => {
    const { sequelize } = db;
    return {
      resourceCatalog: new ResourceCatalogService({ sequelize, sql }),
      resourceCategories: new ResourceCategoryService({ sequelize, sql, clock, audit }),
      /** Uploaded category icon images (the alternative to a named icon). */
      categoryIcons: new CategoryIconService({
        sequelize,
        sql,
        storage,
        audit,
        logger: logger.child({ module: 'library' }),
      }),
      resourceEntitlements: new ResourceEntitlementService({ sequelize, sql, clock, audit, events: domainEvents }),
      publicCatalogue: new PublicCatalogueService({
        sql,
        visitorSecret: deriveKey('library-visitor').toString('base64url'),
      }),
    };
  },
  routes: {
    uploads: ({ services, platform: { storage } }) => categoryIconUploadRoutes({ services, storage }),
    api:
      ({ services, uses, platform: { storage, limiter, config } }) =>
      (router) => {
        categoryIconApiRoutes({ services, storage })(router);
        catalogRoutes(router, {
          catalog: services.resourceCatalog,
          categories: services.resourceCategories,
          entitlements: services.resourceEntitlements,
        });
        publicCatalogueRoutes(router, {
          limiter,
          limit: config.library.publicRequestsPerHour,
          visitors: services.publicCatalogue,
          catalog: services.resourceCatalog,
          categories: services.resourceCategories,
          files: { resources: uses.resourceFiles, categoryIcons: services.categoryIcons, storage },
        });
      },
  },
});
