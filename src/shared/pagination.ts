// One list envelope for every collection: {data, pagination} plus RFC 8288 Link headers.
export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

export interface PageRequest {
  page: number;
  itemsPerPage: number;
}

export interface Pagination extends PageRequest {
  totalItems: number;
  totalPages: number;
}

export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

export function pageRequest(query: { page?: unknown; itemsPerPage?: unknown }): PageRequest {
  // Bounds are enforced by the OpenAPI validator before this runs; defaults live here.
  return {
    page: Number(query.page ?? 1),
    itemsPerPage: Number(query.itemsPerPage ?? DEFAULT_PAGE_SIZE),
  };
}

export const offsetOf = (request: PageRequest): number => (request.page - 1) * request.itemsPerPage;

export function pageOf<T>(data: T[], totalItems: number, request: PageRequest): Page<T> {
  return {
    data,
    pagination: { ...request, totalItems, totalPages: Math.ceil(totalItems / request.itemsPerPage) },
  };
}

export function mapPage<A, B>(page: Page<A>, map: (item: A) => B): Page<B> {
  return { data: page.data.map(map), pagination: page.pagination };
}

/**
 * RFC 8288 Link header with first/prev/next/last, keeping every other query parameter. Takes the
 * request's path and query as sent (`req.originalUrl`); built without URL objects, which cost more
 * than the rest of a list response's formatting.
 */
export function linkHeader(originalUrl: string, pagination: Pagination): string {
  const queryAt = originalUrl.indexOf('?');
  const path = queryAt < 0 ? originalUrl : originalUrl.slice(0, queryAt);
  const others = new URLSearchParams(queryAt < 0 ? '' : originalUrl.slice(queryAt + 1));
  others.delete('page');
  others.delete('itemsPerPage');
  const before = `<${path}?${others.size > 0 ? `${others}&` : ''}page=`;
  const after = `&itemsPerPage=${pagination.itemsPerPage}>; rel=`;
  const last = Math.max(1, pagination.totalPages);
  const links = [link(before, 1, after, 'first')];
  if (pagination.page > 1) links.push(link(before, Math.min(pagination.page - 1, last), after, 'prev'));
  if (pagination.page < last) links.push(link(before, pagination.page + 1, after, 'next'));
  links.push(link(before, last, after, 'last'));
  return links.join(', ');
}

const link = (before: string, page: number, after: string, rel: string): string => `${before}${page}${after}"${rel}"`;
