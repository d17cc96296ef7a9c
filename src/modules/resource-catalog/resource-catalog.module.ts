import { defineModule } from '../../shared/module-manifest.ts';
import { catalogRoutes } from './catalog.routes.ts';
import { categoryIconApiRoutes, categoryIconUploadRoutes } from './category-icon.routes.ts';
import { publicCatalogueRoutes } from './public-catalogue.routes.ts';

/**
 * The library as readers see it: list and search, details, categories, entitlements and the public
 * catalogue. Listed before the library module: `/api/resources/categories` is matched before any
 * `/api/resources/:id` route. Models and the access policy are the library module's (foundation).
 */
export const resourceCatalogModule = defineModule({
  name: 'resource-catalog',
  routes: {
    uploads: categoryIconUploadRoutes,
    api: (context) => (router) => {
      const { container } = context;
      const { resourceCatalog, resourceCategories, resourceEntitlements, publicCatalogue } = container.services;
      categoryIconApiRoutes(context)(router);
      catalogRoutes(router, { catalog: resourceCatalog, categories: resourceCategories, entitlements: resourceEntitlements });
      publicCatalogueRoutes(router, {
        limiter: container.limiter,
        limit: container.config.library.publicRequestsPerHour,
        visitors: publicCatalogue,
        catalog: resourceCatalog,
        categories: resourceCategories,
        files: { resources: container.services.resourceFiles, categoryIcons: container.services.categoryIcons, storage: container.storage },
      });
    },
  },
});
