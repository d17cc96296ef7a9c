import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { parse } from 'yaml';
import { AppError, errors } from '../shared/errors.ts';

const require = createRequire(import.meta.url);

/**
 * express-openapi-validator recompiles the pattern of every documented path on every request while
 * looking up the route (its cost grew with each module's paths: a quarter of a list request's CPU).
 * path-to-regexp is pure, so the compiled patterns are memoised, keyed by path and options.
 */
function memoisePathToRegexp(): void {
  const modulePath = require.resolve('path-to-regexp', { paths: [require.resolve('express-openapi-validator')] });
  const pathToRegexpModule = require(modulePath) as { pathToRegexp: (...args: unknown[]) => unknown; memoised?: boolean };
  if (pathToRegexpModule.memoised) return;
  const original = pathToRegexpModule.pathToRegexp;
  const cache = new Map<string, unknown>();
  pathToRegexpModule.pathToRegexp = (path: unknown, options?: unknown) => {
    if (typeof path !== 'string') return original(path, options);
    // lookupRoute passes {sensitive, strict} for every documented path on every request: key on the
    // two flags directly, not JSON.stringify (which cost as much as the lookup it saved)
    const flags = options as { sensitive?: boolean; strict?: boolean } | undefined;
    const plain = !flags || Object.keys(flags).every((name) => name === 'sensitive' || name === 'strict');
    const key = plain ? `${path}\u0000${flags?.sensitive ? 's' : ''}${flags?.strict ? 't' : ''}` : `${path}\u0000${JSON.stringify(flags)}`;
    let compiled = cache.get(key);
    if (!compiled) cache.set(key, (compiled = original(path, options)));
    return compiled;
  };
  pathToRegexpModule.memoised = true;
}
memoisePathToRegexp();

type MutatorParameter = { $ref?: string; in?: string; content?: unknown; schema?: { $ref?: string; type?: unknown } };
type Mutator = { _apiDocs: { components?: { parameters?: Record<string, MutatorParameter> } }; modifyRequest(req: Request): void };

/**
 * Before validating, express-openapi-validator rewrites the request for the contract's parameter
 * styles (exploded arrays, deepObject, JSON in parameters), building a mutator and re-parsing the
 * URL with the legacy url.parse on every request: most of its cost on a light GET. Without a query
 * string, and when every path, header and cookie parameter is a plain scalar without `content`,
 * that rewrite changes nothing, so it is skipped; the validation itself (the compiled AJV schemas of
 * the operation, run on every request) is untouched. Which operations qualify is decided once per
 * operation.
 */
function skipIdleParameterRewrite(): void {
  const modulePath = require.resolve('express-openapi-validator/dist/middlewares/parsers/req.parameter.mutator.js', {
    paths: [require.resolve('express-openapi-validator')],
  });
  const { RequestParameterMutator } = require(modulePath) as { RequestParameterMutator: { prototype: Mutator & { idleSkipped?: boolean } } };
  const prototype = RequestParameterMutator.prototype;
  if (prototype.idleSkipped) return;
  const original = prototype.modifyRequest;
  const idle = new WeakMap<object, boolean>();
  const SCALARS = new Set(['string', 'integer', 'number', 'boolean']);
  const idleWithoutQuery = (mutator: Mutator, schema: { parameters?: MutatorParameter[] }): boolean => {
    let known = idle.get(schema);
    if (known === undefined) {
      const shared = mutator._apiDocs.components?.parameters ?? {};
      known = (schema.parameters ?? []).every((declared) => {
        const parameter = declared.$ref ? shared[declared.$ref.replace(/^.+\//, '')] : declared;
        if (!parameter || parameter.content) return false;
        if (parameter.in === 'query') return true; // absent when there is no query string
        return !parameter.schema?.$ref && typeof parameter.schema?.type === 'string' && SCALARS.has(parameter.schema.type);
      });
      idle.set(schema, known);
    }
    return known;
  };
  prototype.modifyRequest = function modifyRequest(this: Mutator, req: Request) {
    const schema = (req as Request & { openapi?: { schema?: { parameters?: MutatorParameter[] } } }).openapi?.schema;
    if (schema && !req.originalUrl.includes('?') && idleWithoutQuery(this, schema)) return;
    original.call(this, req);
  };
  prototype.idleSkipped = true;
}
skipIdleParameterRewrite();

type AjvLike = { getSchema(key: string): unknown; addSchema(schema: object, key?: string): unknown };
type SharedParts = { paths?: object; components?: object };

/**
 * express-openapi-validator compiles each operation's request checks (two schemas) and each of its
 * declared responses (one per status and media type) as a schema that carries the whole contract's
 * `paths` and `components` beside it, so that `#/components/...` resolves; AJV walks every key of
 * what it is given (some 22,000 nodes here) each time: 60 to 150 ms per schema, 0.4 to 0.7 s of CPU
 * the first time an operation is answered (every test file pays it again for each operation it
 * calls). The shared parts are registered once per AJV instance under an id of their own, and each
 * operation's schema refers to them there: the same schemas, the same checks, each walked once.
 */
function registerSharedPartsOnce(): void {
  const modulePath = require.resolve('express-openapi-validator/dist/middlewares/util.js', { paths: [require.resolve('express-openapi-validator')] });
  const util = require(modulePath) as { useAjvCache: (ajv: AjvLike, schema: object, key: string) => unknown; sharedPartsOnce?: boolean };
  if (util.sharedPartsOnce) return;
  if (typeof util.useAjvCache !== 'function') throw new Error('express-openapi-validator no longer has useAjvCache: review registerSharedPartsOnce');
  const original = util.useAjvCache;
  const registered = new WeakMap<AjvLike, Map<string, string>>();
  let ids = 0;
  const idOf = (ajv: AjvLike, shared: Required<SharedParts>): string => {
    const byParts = registered.get(ajv) ?? new Map<string, string>();
    registered.set(ajv, byParts);
    // the validator hands the same two objects to every schema of one contract
    const objectKey = `${identity(shared.paths)}:${identity(shared.components)}`;
    let id = byParts.get(objectKey);
    if (!id) {
      id = `urn:guildhall:contract:${++ids}`;
      ajv.addSchema({ $id: id, paths: shared.paths, components: shared.components });
      byParts.set(objectKey, id);
    }
    return id;
  };
  util.useAjvCache = (ajv, schema, key) => {
    const cached = ajv.getSchema(key);
    if (cached) return cached;
    const { paths, components, ...own } = schema as SharedParts & Record<string, unknown>;
    if (!components || typeof components !== 'object') return original(ajv, schema, key);
    const id = idOf(ajv, { paths: paths ?? {}, components });
    ajv.addSchema(pointRefsAt(own, id), key);
    return ajv.getSchema(key);
  };
  util.sharedPartsOnce = true;
}

const identities = new WeakMap<object, number>();
let nextIdentity = 0;
function identity(value: object): number {
  let known = identities.get(value);
  if (known === undefined) identities.set(value, (known = ++nextIdentity));
  return known;
}

/** A copy of `schema` whose `#/paths/...` and `#/components/...` references point into the document `id` (shared subtrees copied once). */
function pointRefsAt(schema: object, id: string): object {
  const copies = new Map<object, unknown>();
  const copy = (value: unknown): unknown => {
    if (!value || typeof value !== 'object') return value;
    const known = copies.get(value);
    if (known) return known;
    if (Array.isArray(value)) {
      const array: unknown[] = [];
      copies.set(value, array);
      for (const item of value) array.push(copy(item));
      return array;
    }
    const object: Record<string, unknown> = {};
    copies.set(value, object);
    for (const [name, inner] of Object.entries(value)) {
      object[name] = name === '$ref' && typeof inner === 'string' && /^#\/(components|paths)\//.test(inner) ? `${id}${inner}` : copy(inner);
    }
    return object;
  };
  return copy(schema) as object;
}
registerSharedPartsOnce();

export const CONTRACT_PATH = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));

export interface Contract {
  yaml: string;
  document: OpenAPIV3.DocumentV3_1;
}

export function loadContract(): Contract {
  const yaml = readFileSync(CONTRACT_PATH, 'utf8');
  return { yaml, document: parse(yaml) as OpenAPIV3.DocumentV3_1 };
}

export interface ContractPhases {
  /** Finds the request's operation (404 and 405 for paths and methods the contract lacks); hooks the response validator when asked. */
  findOperation: RequestHandler;
  /** Validates parameters and body against the operation; deprecation headers. */
  validate: RequestHandler;
}

/**
 * Every request is checked against the contract; responses too when asked (always in tests). Two
 * phases, so that the surface can authenticate between finding the operation (which says whether it
 * needs a credential) and validating its inputs: a caller without a credential learns nothing about
 * the shape the operation expects.
 */
export function contractPhases(contract: Contract, validateResponses: boolean): ContractPhases {
  const middlewares = OpenApiValidator.middleware({
    // a deep copy: the validator annotates the document it is given
    apiSpec: structuredClone(contract.document) as unknown as OpenAPIV3.DocumentV3,
    validateApiSpec: true,
    // allErrors: a client fixing a form wants every failing field at once; bodies are capped at 1 MB
    // and our schemas are our own, which is what keeps AJV's all-errors mode safe here.
    // coerceTypes false: the library still coerces path and query strings (they have no other type)
    // but a JSON body of the wrong type is refused, never converted (`capacity: true` is not 1).
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, allErrors: true },
    validateResponses: validateResponses ? { removeAdditional: false } : false,
    validateSecurity: false, // authentication is ours (http/authenticate.ts); the contract documents it
    ignoreUndocumented: false,
    fileUploader: false,
  }) as RequestHandler[];
  const named = (name: string) => middlewares.filter((middleware) => middleware.name === name);
  const known = new Set(['pathParamsMiddleware', 'metadataMiddleware', 'securityMiddleware', 'requestMiddleware', 'responseMiddleware']);
  const unknown = middlewares.filter((middleware) => !known.has(middleware.name));
  if (unknown.length) throw new Error(`express-openapi-validator added middleware this app does not place: ${unknown.map((m) => m.name).join(', ')}`);
  return {
    // the response validator is hooked here, so a 401 or a 429 answered before validation is checked too
    findOperation: inSequence([...named('pathParamsMiddleware'), ...named('metadataMiddleware').map(rememberingRouteMatches), ...named('responseMiddleware')]),
    // securityMiddleware is a no-op with validateSecurity: false
    validate: inSequence([...named('requestMiddleware'), deprecationHeaders()]),
  };
}

type OperationSchema = { security?: Array<Record<string, unknown>>; parameters?: Array<ParameterObject | { $ref: string }> };
type ParameterObject = { name: string; in: string; style?: string; schema?: { type?: string | string[]; items?: unknown } };
const operationOf = (req: Request) => (req as Request & { openapi?: { schema?: OperationSchema } }).openapi?.schema;

/**
 * After the operation is found and the credential read: an operation whose security requirements
 * do not include the anonymous `{}` is refused with 401 before its inputs are looked at.
 */
export function requireCredential(contract: Contract): RequestHandler {
  const documentSecurity = (contract.document.security ?? []) as Array<Record<string, unknown>>;
  return (req, _res, next) => {
    const operation = operationOf(req);
    if (!operation || req.context.actor) return next();
    const security = operation.security ?? documentSecurity;
    const anonymous = security.length === 0 || security.some((requirement) => Object.keys(requirement).length === 0);
    if (!anonymous) throw errors.unauthenticated('This operation needs Authorization: Bearer <API key or token>');
    next();
  };
}

/**
 * qs turns `status[x]=active` into an object; the validator then calls `.split` on it and fails
 * with a 500. A parameter the contract declares as a string or a list of strings (anything but a
 * deepObject) sent in bracketed form is a 400 naming the parameter as sent.
 */
export function rejectMisshapenQuery(contract: Contract): RequestHandler {
  const parameters = (contract.document.components?.parameters ?? {}) as Record<string, ParameterObject>;
  const resolve = (parameter: ParameterObject | { $ref: string }): ParameterObject | undefined =>
    '$ref' in parameter ? parameters[parameter.$ref.replace('#/components/parameters/', '')] : parameter;
  return (req, _res, next) => {
    const operation = operationOf(req);
    if (!operation?.parameters || !req.url.includes('?')) return next();
    const query = req.query as Record<string, unknown>;
    for (const declared of operation.parameters) {
      const parameter = resolve(declared);
      if (parameter?.in !== 'query' || parameter.style === 'deepObject' || parameter.schema?.type === 'object') continue;
      const value = query[parameter.name];
      const scalar = (item: unknown) => typeof item === 'string';
      if (value === undefined || scalar(value) || (Array.isArray(value) && value.every(scalar))) continue;
      const field = `${parameter.name}${Object.keys(value as object).map((key) => `[${key}]`).join('')}`;
      throw new AppError('invalid_filter', `Query parameter "${parameter.name}" takes a value, not a bracketed object (got ${field})`, {
        errors: [{ field, message: 'must be a string or repeated value, not a bracketed object' }],
      });
    }
    next();
  };
}

/**
 * Runs handlers one after another as a single middleware (one router layer instead of several).
 * Composed once, here: a closure built per request would cost a property definition each time
 * (tsx keeps function names).
 */
function inSequence(handlers: RequestHandler[]): RequestHandler {
  const done: RequestHandler = (_req, _res, next) => next();
  return handlers.reduceRight<RequestHandler>(
    (rest, handler) => (req, res, next) => handler(req, res, (error?: unknown) => (error === undefined || error === null ? rest(req, res, next) : next(error))),
    done,
  );
}

type OpenApiMatch = { pathParams: Record<string, string>; schema?: unknown };
const MAX_REMEMBERED_MATCHES = 10_000;

/**
 * The validator finds a request's operation by trying every documented path's regular expression
 * in turn, on every request, so its cost grows with the contract. The match depends only on the
 * method and the path, so it is remembered per (method, path); what the library does on a miss
 * (404, 405, the match itself) is unchanged. Bounded: emptied when full.
 */
function rememberingRouteMatches(findOperation: RequestHandler): RequestHandler {
  const matches = new Map<string, OpenApiMatch>();
  return (req, res, next) => {
    const queryAt = req.originalUrl.indexOf('?');
    const key = `${req.method} ${queryAt < 0 ? req.originalUrl : req.originalUrl.slice(0, queryAt)}`;
    const known = matches.get(key);
    const withMatch = req as Request & { openapi?: OpenApiMatch };
    if (known) {
      // each request gets its own params object: later middleware writes to req.params
      withMatch.openapi = { ...known, pathParams: { ...known.pathParams } };
      req.params = withMatch.openapi.pathParams;
      return next();
    }
    findOperation(req, res, (error?: unknown) => {
      const found = withMatch.openapi;
      if (!error && found?.schema) {
        if (matches.size >= MAX_REMEMBERED_MATCHES) matches.clear();
        matches.set(key, { ...found, pathParams: { ...found.pathParams } });
      }
      next(error);
    });
  };
}

/**
 * Operations marked `deprecated: true` announce it (RFC 9745 Deprecation, RFC 8594 Sunset). The
 * sunset date comes from the operation's `x-sunset` extension.
 */
function deprecationHeaders() {
  return (req: Request, res: Response, next: NextFunction) => {
    const operation = (req as Request & { openapi?: { schema?: { deprecated?: boolean; 'x-sunset'?: string; 'x-deprecated-at'?: string } } }).openapi?.schema;
    if (operation?.deprecated) {
      const since = operation['x-deprecated-at'] ? Math.floor(Date.parse(operation['x-deprecated-at']) / 1000) : undefined;
      res.setHeader('Deprecation', since ? `@${since}` : 'true');
      if (operation['x-sunset']) res.setHeader('Sunset', new Date(operation['x-sunset']).toUTCString());
    }
    next();
  };
}
