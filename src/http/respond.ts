import type { Request, Response } from 'express';
import { AppError } from '../shared/errors.ts';
import { linkHeader, type Page } from '../shared/pagination.ts';

/**
 * The media type of `offered` the Accept header prefers (the first when there is no header or it
 * accepts anything); 406 when it accepts none of them, as the contract's NotAcceptable response says.
 */
export function negotiate<T extends string>(req: Request, offered: readonly T[]): T {
  const chosen = req.accepts(offered as T[]);
  if (chosen === false)
    throw new AppError(
      'not_acceptable',
      `The Accept header names none of the media types offered: ${offered.join(', ')}`,
    );
  return chosen as T;
}

/** Sends a list envelope with its RFC 8288 Link header. */
export function sendPage<T>(req: Request, res: Response, page: Page<T>): void {
  res.setHeader('Link', linkHeader(req.originalUrl, page.pagination));
  res.json(page);
}
