// /api/public/...: no credential (`security: []` in the contract). The per-organization hourly limit
// has no organization to count against here, so these routes are limited per client address
// (LIBRARY_PUBLIC_REQUESTS_PER_HOUR), with the same headers as every other limit.
import type { NextFunction, Request, Response, Router } from 'express';
import { errors } from '../../shared/errors.ts';
import { pageRequest } from '../../shared/pagination.ts';
import type { RateLimiter } from '../../shared/rate-limiter.ts';
import { sendPage } from '../../http/respond.ts';
import type { FileStorage } from '../../integrations/storage/file-storage.ts';
import type { ResourceDto, ResourceFileService } from '../library/index.ts';
import { sendStoredFile } from '../../http/send-stored-file.ts';
import type { ResourceCatalogService } from './catalog.service.ts';
import type { ResourceCategoryService } from './category.service.ts';
import type { CategoryIconService } from './category-icon.service.ts';
import type { PublicCatalogueService } from './public-catalogue.service.ts';

const WINDOW_SECONDS = 3600;
const PREFIX = '/api/public/organizations/:slug';

export function perAddressLimit(limiter: RateLimiter, limit: number) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const state = await limiter.consume(`public:${req.ip ?? 'unknown'}`, limit, WINDOW_SECONDS);
    res.setHeader('RateLimit-Policy', `"hourly";q=${state.limit};w=${WINDOW_SECONDS}`);
    res.setHeader('RateLimit', `"hourly";r=${state.remaining};t=${state.resetSeconds}`);
    res.setHeader('X-RateLimit-Limit', String(state.limit));
    res.setHeader('X-RateLimit-Remaining', String(state.remaining));
    res.setHeader('X-RateLimit-Reset', String(Math.floor(state.resetAt.getTime() / 1000)));
    if (!state.allowed)
      throw errors.tooManyRequests(
        'rate_limited',
        state.resetSeconds,
        `The public catalogue allows ${state.limit} requests per hour from one address`,
      );
    next();
  };
}

export interface PublicCatalogueDeps {
  limiter: RateLimiter;
  limit: number;
  visitors: PublicCatalogueService;
  catalog: ResourceCatalogService;
  categories: ResourceCategoryService;
  /** Public resources' files and category icons, through the library's own paths (the same policy, Range, ETag). */
  files: { resources: ResourceFileService; categoryIcons: CategoryIconService; storage: FileStorage };
}

/**
 * A visitor follows only links that take no credential: the download through this catalogue; the
 * thumbnail and the featured image are served to signed-in readers only, so they are not linked here.
 */
const withPublicLinks =
  (slug: string) =>
  (resource: ResourceDto): ResourceDto => ({
    ...resource,
    links: {
      download: `/api/public/organizations/${encodeURIComponent(slug)}/resources/${resource.id}/download`,
      thumbnail: null,
      featuredImage: null,
    },
  });

const LIST_PARAMETERS = new Set(['page', 'itemsPerPage']);
const withoutPaging = (query: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(query).filter(([name]) => !LIST_PARAMETERS.has(name)));

export function publicCatalogueRoutes(
  router: Router,
  { limiter, limit, visitors, catalog, categories, files }: PublicCatalogueDeps,
): void {
  const limited = perAddressLimit(limiter, limit);
  const reader = (req: Request) => visitors.reader(req.params.slug as string, req.ip ?? 'unknown');
  router.get(`${PREFIX}/resources`, limited, async (req, res) => {
    const page = await catalog.listFor(await reader(req), withoutPaging(req.query), pageRequest(req.query));
    sendPage(req, res, { ...page, data: page.data.map(withPublicLinks(req.params.slug as string)) });
  });
  router.get(`${PREFIX}/resources/:id`, limited, async (req, res) => {
    const resource = await catalog.getFor(await reader(req), req.params.id as string, {
      countView: req.method !== 'HEAD',
    });
    res.json(withPublicLinks(req.params.slug as string)(resource));
  });
  // "Public: all visitors": a public resource's file too, as the anonymous visitor opens it
  router.get(`${PREFIX}/resources/:id/download`, limited, async (req, res) => {
    const visitor = await reader(req);
    const { reader: opened, file } = await files.resources.openCurrent(visitor.actor, req.params.id as string);
    const outcome = await sendStoredFile(req, res, files.storage, file);
    if (outcome.status !== 304 && outcome.fromStart)
      await files.resources.recordDownload(opened, req.params.id as string);
  });
  router.get(`${PREFIX}/categories`, limited, async (req, res) => {
    const iconUrl = (id: string) =>
      `/api/public/organizations/${encodeURIComponent(req.params.slug as string)}/categories/${id}/icon`;
    sendPage(req, res, await categories.listFor(await reader(req), 'exclude', pageRequest(req.query), iconUrl));
  });
  router.get(`${PREFIX}/categories/:id/icon`, limited, async (req, res) => {
    await sendStoredFile(
      req,
      res,
      files.storage,
      await files.categoryIcons.open((await reader(req)).actor, req.params.id as string),
    );
  });
}
