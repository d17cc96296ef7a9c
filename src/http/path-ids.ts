// Every `{id}` the contract declares is a UUID. The JSON API's contract validator refuses any other
// value with a 400 naming the parameter; the streamed surfaces (uploads) run before that validator,
// so they refuse it here in the same words. Without it, `PUT /api/resources/abc` reached PostgreSQL's
// uuid column and failed there as a 500.
import type { RequestHandler } from 'express';
import { errors } from '../shared/errors.ts';
import { isUuid } from '../shared/uuid.ts';

/** The path parameters that name a record (`:id`, `:uploadId`, `:entitlementId`...). */
const namesRecord = (name: string) => name === 'id' || name.endsWith('Id');

/** Refuses, with one 400 naming each, the record ids in the route's path that are not UUIDs. */
export const refuseMalformedIds: RequestHandler = (req, _res, next) => {
  const wrong = Object.entries(req.params as Record<string, string>).filter(
    ([name, value]) => namesRecord(name) && !isUuid(value),
  );
  next(
    wrong.length
      ? errors.validation(wrong.map(([field]) => ({ field, message: 'must match format "uuid"' })))
      : undefined,
  );
};
