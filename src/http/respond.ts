import type { Request, Response } from 'express';
import { linkHeader, type Page } from '../shared/pagination.ts';

/** Sends a list envelope with its RFC 8288 Link header. */
export function sendPage<T>(req: Request, res: Response, page: Page<T>): void {
  res.setHeader('Link', linkHeader(req.originalUrl, page.pagination));
  res.json(page);
}
