// Which callers an operation is open to is declared once, as its `x-guildhall-access` (docs/access.md
// publishes it). The services check the permission itself, first of all; what this adds is the order
// of two refusals: a caller the operation is closed to gets its 403 even when the request's inputs
// are wrong too. Without it the contract's validator, which runs before any service, answered such a
// caller 400 and named the fields, telling someone who may not call an operation how to call it.
import type { ErrorRequestHandler, Request } from 'express';
import type { Actor } from '../shared/access/actor.ts';
import { AppError, errors } from '../shared/errors.ts';
import { operationOf } from './openapi.ts';
import { toAppError } from './problem.ts';

/** The caller kinds of `x-guildhall-access` (the columns of docs/access.md). */
export type CallerKind =
  | 'anonymous'
  | 'member'
  | 'sponsor_admin'
  | 'client_user'
  | 'client_admin'
  | 'api_key'
  | 'platform_admin'
  | 'impersonation'
  | 'directory';

const ROLE_KINDS: Partial<Record<Actor['role'], CallerKind>> = {
  ROLE_MEMBER: 'member',
  ROLE_SPONSOR_ADMIN: 'sponsor_admin',
  ROLE_CLIENT_USER: 'client_user',
  ROLE_CLIENT_ADMIN: 'client_admin',
  ROLE_PLATFORM_ADMIN: 'platform_admin',
  API_KEY: 'api_key',
  DIRECTORY: 'directory',
};

/** The kind the table names the actor by; undefined for a role the table has no column for (sponsor users). */
function callerKind(actor: Actor): CallerKind | undefined {
  if (actor.impersonation?.mode === 'read_only') return 'impersonation';
  return ROLE_KINDS[actor.role];
}

/** The refusal a credentialed caller gets from an operation not open to its kind, if it is not. */
function refusalOf(req: Request): AppError | undefined {
  const actor = req.context?.actor;
  const allowed = operationOf(req)?.['x-guildhall-access'];
  if (!actor || !allowed || allowed.includes('any')) return undefined;
  const kind = callerKind(actor);
  if (!kind || allowed.includes(kind)) return undefined;
  // a read-only impersonation of a role the operation is open to: refused for being read-only, as assertCan says it
  const role = actor.impersonation ? ROLE_KINDS[actor.role] : undefined;
  if (kind === 'impersonation' && role && allowed.includes(role))
    return new AppError('read_only_impersonation', 'This impersonation session is read-only');
  return errors.forbidden(`This operation is not open to your role (${actor.role})`);
}

// the refusals of a request's inputs, before any service runs: 400 (query, JSON, contract) and 415
const INPUT_REFUSALS = new Set([400, 415]);

/** Placed after the input checks: an input refusal yields to the refusal of the caller. */
export function callerRefusedFirst(): ErrorRequestHandler {
  return (error, req, _res, next) => {
    next((INPUT_REFUSALS.has(toAppError(error).status) && refusalOf(req)) || error);
  };
}
