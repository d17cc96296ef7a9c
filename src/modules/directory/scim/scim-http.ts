// What every SCIM resource route shares: weak ETags from the row's version (RFC 7644 §3.14), list
// paging (1-based startIndex, count capped at 200) and the ListResponse message. `attributes` and
// `excludedAttributes`: scim-attributes.ts.
import type { Request, Response } from 'express';
import { sendScim } from '../../../http/surfaces/renderers.ts';
import { errors } from '../../../shared/errors.ts';
import { type Filter, FilterSyntaxError, parseFilter } from './scim-filter.ts';
import { scimErrors } from './scim-errors.ts';

export const LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const MAX_RESULTS = 200;
const DEFAULT_COUNT = 100;

export const etagOf = (version: number) => `W/"${version}"`;

const tags = (header: string) => header.split(',').map((tag) => tag.trim().replace(/^W\//, ''));

/** PUT, PATCH, DELETE with If-Match: 412 unless it names the current version (or is *). */
export function assertIfMatch(req: Request, version: number): void {
  const header = req.get('if-match');
  if (!header || header.trim() === '*') return;
  if (!tags(header).includes(`"${version}"`)) throw scimErrors.preconditionFailed();
}

/** GET with If-None-Match naming the current version: 304 sent, true returned. */
export function answeredNotModified(req: Request, res: Response, version: number): boolean {
  const header = req.get('if-none-match');
  res.setHeader('ETag', etagOf(version));
  if (!header || !(header.trim() === '*' || tags(header).includes(`"${version}"`))) return false;
  res.status(304).end();
  return true;
}

export interface ListQuery {
  filter: Filter | null;
  startIndex: number;
  count: number;
}

function integer(req: Request, name: string): number | undefined {
  const raw = req.query[name];
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !/^-?\d{1,9}$/.test(raw)) throw scimErrors.invalidValue(name, 'is an integer');
  return Number(raw);
}

export function listQuery(req: Request): ListQuery {
  const raw = req.query.filter;
  let filter: Filter | null = null;
  if (raw !== undefined) {
    if (typeof raw !== 'string') throw errors.invalidFilter('filter', 'is given once, as text');
    try {
      filter = parseFilter(raw);
    } catch (error) {
      if (error instanceof FilterSyntaxError) throw errors.invalidFilter('filter', error.message);
      throw error;
    }
  }
  // RFC 7644 §3.4.2.4: below 1 is 1; a negative count is 0; more than we serve is what we serve
  const startIndex = Math.max(1, integer(req, 'startIndex') ?? 1);
  const count = Math.min(MAX_RESULTS, Math.max(0, integer(req, 'count') ?? DEFAULT_COUNT));
  return { filter, startIndex, count };
}

export function sendList(res: Response, query: ListQuery, total: number, resources: unknown[]): void {
  sendScim(res, {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults: total,
    startIndex: query.startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  });
}

/** One resource with its ETag (and Location on 201). */
export function sendResource(
  res: Response,
  status: 200 | 201,
  resource: Record<string, unknown> & { meta?: unknown },
  version: number,
): void {
  const meta = resource.meta as { location?: string } | undefined;
  res.status(status).setHeader('ETag', etagOf(version));
  if (status === 201 && meta?.location) res.setHeader('Location', meta.location);
  sendScim(res, resource);
}
