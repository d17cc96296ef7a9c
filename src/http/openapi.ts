import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { parse } from 'yaml';

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

export const CONTRACT_PATH = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));

export interface Contract {
  yaml: string;
  document: OpenAPIV3.DocumentV3_1;
}

export function loadContract(): Contract {
  const yaml = readFileSync(CONTRACT_PATH, 'utf8');
  return { yaml, document: parse(yaml) as OpenAPIV3.DocumentV3_1 };
}

/**
 * Every request is checked against the contract; responses too when asked (always in tests). Then
 * deprecated operations announce it.
 */
export function contractValidator(contract: Contract, validateResponses: boolean): RequestHandler {
  const middlewares = OpenApiValidator.middleware({
    // a deep copy: the validator annotates the document it is given
    apiSpec: structuredClone(contract.document) as unknown as OpenAPIV3.DocumentV3,
    validateApiSpec: true,
    // allErrors: a client fixing a form wants every failing field at once; bodies are capped at 1 MB
    // and our schemas are our own, which is what keeps AJV's all-errors mode safe here.
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: true, allErrors: true },
    validateResponses: validateResponses ? { removeAdditional: false } : false,
    validateSecurity: false, // authentication is ours (http/authenticate.ts); the contract documents it
    ignoreUndocumented: false,
    fileUploader: false,
  }) as RequestHandler[];
  const steps = middlewares
    .filter((middleware) => middleware.name !== 'securityMiddleware') // a no-op with validateSecurity: false
    .map((middleware) => (middleware.name === 'metadataMiddleware' ? rememberingRouteMatches(middleware) : middleware));
  return inSequence([...steps, deprecationHeaders()]);
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
