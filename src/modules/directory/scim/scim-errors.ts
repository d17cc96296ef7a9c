// The SCIM answers the shared error catalog has no code for: RFC 7644's noTarget and invalidPath
// (400s of PATCH), 412 for a failed If-Match and 501 for what the server does not offer (/Me, /Bulk).
// The surface's renderer keeps the common ones (invalidFilter, invalidValue, uniqueness, mutability,
// invalidSyntax, 404, 429) from AppError codes; these render here in the same body, so a client sees
// one format.
import type { NextFunction, Request, Response } from 'express';
import { SCIM_ERROR_SCHEMA, sendScim } from '../../../http/surfaces/renderers.ts';
import { AppError } from '../../../shared/errors.ts';

export type ScimType = 'noTarget' | 'invalidPath' | 'invalidSyntax' | 'invalidValue' | 'mutability';

export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly scimType: ScimType | undefined,
    detail: string,
  ) {
    super(detail);
  }
}

export const scimErrors = {
  noTarget: (detail: string) => new ScimError(400, 'noTarget', detail),
  invalidPath: (detail: string) => new ScimError(400, 'invalidPath', detail),
  invalidSyntax: (detail: string) => new ScimError(400, 'invalidSyntax', detail),
  /** An invalid value: the catalog's validation_failed, which the renderer shows as invalidValue. */
  invalidValue: (field: string, message: string) =>
    new AppError('validation_failed', `${field} ${message}`, { errors: [{ field, message }] }),
  /** Writing id, meta or groups: the catalog's read_only_field (mutability). */
  mutability: (attribute: string) =>
    new AppError('read_only_field', `${attribute} is read-only`, {
      errors: [{ field: attribute, message: 'is read-only' }],
    }),
  notImplemented: (detail: string) => new ScimError(501, undefined, detail),
  preconditionFailed: () => new ScimError(412, undefined, 'The resource changed: its ETag no longer matches If-Match'),
};

/** Renders ScimErrors; everything else goes on to the surface's error handler. */
export function scimErrorHandler(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (!(error instanceof ScimError)) {
    next(error);
    return;
  }
  sendScim(res.status(error.status), {
    schemas: [SCIM_ERROR_SCHEMA],
    status: String(error.status),
    ...(error.scimType ? { scimType: error.scimType } : {}),
    detail: error.message,
  });
}
