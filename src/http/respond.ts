import type { IncomingMessage } from 'node:http';
import accepts from 'accepts';
import type { Request, Response } from 'express';
import { AppError } from '../shared/errors.ts';
import { linkHeader, type Page } from '../shared/pagination.ts';

/**
 * An Accept header's media ranges without their parameters (`q` kept): `text/csv; charset=utf-8` or
 * `application/json; charset=utf-8` asks for what is offered, and the answer carries that charset.
 * Matched as sent, a parameter the offered type does not name made the range match nothing.
 */
function rangesOnly(accept: string): string {
  return accept
    .split(',')
    .map((range) => {
      const [type = '', ...parameters] = range.split(';');
      const weight = parameters.find((parameter) => /^\s*q\s*=/i.test(parameter));
      return weight ? `${type.trim()};${weight.trim()}` : type.trim();
    })
    .join(', ');
}

/**
 * The media type of `offered` the Accept header prefers (the first when there is no header or it
 * accepts anything); 406 when it accepts none of them, as the contract's NotAcceptable response says.
 */
export function negotiate<T extends string>(req: Request, offered: readonly T[]): T {
  const accept = req.headers.accept;
  const chosen = accepts({
    headers: accept === undefined ? {} : { accept: rangesOnly(accept) },
  } as IncomingMessage).type(offered as T[]);
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
