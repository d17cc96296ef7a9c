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

/** RFC 8288 Link header with first/prev/next/last, keeping every other query parameter. */
export function linkHeader(requestUrl: URL, pagination: Pagination): string {
  const link = (page: number, rel: string) => {
    const url = new URL(requestUrl);
    url.searchParams.set('page', String(page));
    url.searchParams.set('itemsPerPage', String(pagination.itemsPerPage));
    return `<${url.pathname}${url.search}>; rel="${rel}"`;
  };
  const last = Math.max(1, pagination.totalPages);
  const links = [link(1, 'first')];
  if (pagination.page > 1) links.push(link(Math.min(pagination.page - 1, last), 'prev'));
  if (pagination.page < last) links.push(link(pagination.page + 1, 'next'));
  links.push(link(last, 'last'));
  return links.join(', ');
}
