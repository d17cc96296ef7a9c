import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { parse } from 'yaml';
import { sha256 } from '../shared/crypto.ts';
import { errors } from '../shared/errors.ts';
import './openapi.patches.ts';

export const CONTRACT_PATH = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));

export interface Contract {
  yaml: string;
  document: OpenAPIV3.DocumentV3_1;
}

export function loadContract(): Contract {
  const yaml = readFileSync(CONTRACT_PATH, 'utf8');
  return { yaml, document: parsedContract(yaml) as OpenAPIV3.DocumentV3_1 };
}

/** node_modules/.cache/guildhall of the contract's installation (the source tree or the build's parent). */
function contractCacheDir(): string | undefined {
  for (let dir = path.dirname(CONTRACT_PATH); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'node_modules'))) return path.join(dir, 'node_modules', '.cache', 'guildhall');
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * Parsing the contract's YAML (325 KB) costs 0.5 to 1 s of CPU in every process that starts the app,
 * and each test file starts one. The parsed document is kept as JSON (a thousandth of the cost to
 * read) in node_modules/.cache/guildhall, named by the SHA-256 of the YAML text, so an edited
 * contract is parsed afresh. A cache that cannot be read or written is not used: nothing depends on it.
 */
export function parsedContract(yaml: string, dir = contractCacheDir()): unknown {
  if (!dir) return parse(yaml);
  const name = `openapi-${sha256(yaml).slice(0, 24)}.json`;
  const file = path.join(dir, name);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // not cached yet (or unreadable): parse it
  }
  const document: unknown = parse(yaml);
  try {
    mkdirSync(dir, { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(document));
    renameSync(partial, file); // whole or absent for a concurrent reader
    for (const old of readdirSync(dir))
      if (/^openapi-\w+\.json$/.test(old) && old !== name) rmSync(path.join(dir, old), { force: true });
  } catch {
    // a read-only installation: parse at every start, as before
  }
  return document;
}

/**
 * express-openapi-validator checks the whole contract against the OpenAPI schema, bundles its
 * references and compiles each operation's schemas on first use: 2 to 3 s of CPU for each instance.
 * Its middlewares hold no state of the app they serve (they read and write only the request and
 * response; the `app.param` hooks it adds to the first app it serves touch only routes declared on
 * the app itself, and ours are all on routers), so a process that builds several apps from the same
 * contract (the tests: one per file) builds one validator per contract document and response setting.
 */
const validators = new Map<string, RequestHandler[]>();
function validatorFor(contract: Contract, validateResponses: boolean): RequestHandler[] {
  // the document, not its YAML: a test's own contract may change the document it was parsed into
  const key = `${validateResponses}:${sha256(JSON.stringify(contract.document))}`;
  let middlewares = validators.get(key);
  if (!middlewares) {
    if (validators.size >= 8) validators.clear();
    middlewares = newValidator(contract, validateResponses);
    validators.set(key, middlewares);
  }
  return middlewares;
}

function newValidator(contract: Contract, validateResponses: boolean): RequestHandler[] {
  return OpenApiValidator.middleware({
    // a deep copy: the validator annotates the document it is given
    apiSpec: structuredClone(contract.document) as unknown as OpenAPIV3.DocumentV3,
    validateApiSpec: true,
    // allErrors: a client fixing a form wants every failing field at once; bodies are capped at 1 MB
    // and our schemas are our own, which is what keeps AJV's all-errors mode safe here.
    // coerceTypes false: the library still coerces path and query strings (they have no other type)
    // but a JSON body of the wrong type is refused, never converted (`capacity: true` is not 1).
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, allErrors: true },
    // full: a date or date-time must exist on the calendar. The default ("fast") let 2026-02-30
    // through, and the database then stored it as 2 March: a value other than the one sent.
    ajvFormats: { mode: 'full' },
    validateResponses: validateResponses ? { removeAdditional: false } : false,
    validateSecurity: false, // authentication is ours (http/authenticate.ts); the contract documents it
    ignoreUndocumented: false,
    fileUploader: false,
  }) as RequestHandler[];
}

export interface ContractPhases {
  /**
   * Finds the request's operation (404 and 405 for paths and methods the contract lacks); hooks the
   * response validator when asked.
   */
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
export function contractPhases(
  contract: Contract,
  validateResponses: boolean,
  onResponseDrift?: LateErrorHandler,
): ContractPhases {
  const middlewares = validatorFor(contract, validateResponses);
  const named = (name: string) => middlewares.filter((middleware) => middleware.name === name);
  const known = new Set([
    'pathParamsMiddleware',
    'metadataMiddleware',
    'securityMiddleware',
    'requestMiddleware',
    'responseMiddleware',
  ]);
  const unknown = middlewares.filter((middleware) => !known.has(middleware.name));
  if (unknown.length)
    throw new Error(
      `express-openapi-validator added middleware this app does not place: ${unknown.map((m) => m.name).join(', ')}`,
    );
  return {
    // the response validator is hooked here, so a 401 or a 429 answered before validation is checked too
    findOperation: headAsGet(
      inSequence([
        ...named('pathParamsMiddleware'),
        ...named('metadataMiddleware').map(rememberingRouteMatches),
        ...named('responseMiddleware').map((middleware) => reportingLateErrors(middleware, onResponseDrift)),
      ]),
    ),
    // securityMiddleware is a no-op with validateSecurity: false
    validate: inSequence([...named('requestMiddleware').map(namingTheMethod), deprecationHeaders()]),
  };
}

type OperationSchema = {
  'x-guildhall-access'?: string[];
  security?: Array<Record<string, unknown>>;
  parameters?: Array<ParameterObject | { $ref: string }>;
};
export type ParameterObject = {
  name: string;
  in: string;
  style?: string;
  schema?: { type?: string | string[]; items?: unknown };
};
/** The operation the request was matched to (after `findOperation`), as the contract declares it. */
export const operationOf = (req: Request) =>
  (req as Request & { openapi?: { schema?: OperationSchema } }).openapi?.schema;

/**
 * Runs `handlers` except for the operations whose `x-guildhall-access` is `[any]` (health and
 * readiness): they read no credential, so one sent is neither checked nor counted against an
 * organization's limit (a monitor that forwards a tenant's token must not see an outage when that
 * tenant is over quota).
 */
export function exceptCredentialFree(handlers: RequestHandler[]): RequestHandler[] {
  return handlers.map(
    (handler): RequestHandler =>
      (req, res, next) =>
        operationOf(req)?.['x-guildhall-access']?.includes('any') ? next() : handler(req, res, next),
  );
}

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
 * Runs handlers one after another as a single middleware (one router layer instead of several).
 * Composed once, here: a closure built per request would cost a property definition each time
 * (tsx keeps function names).
 */
export type LateErrorHandler = (error: unknown, req: Request, res: Response) => void;

/**
 * The response validator hooks res.json when the operation is found and reports a drifting body
 * much later through the `next` it was given then, which the request has long moved past: Express
 * would never see that error and the request would hang. Such a late error goes to `onLateError`.
 */
function reportingLateErrors(middleware: RequestHandler, onLateError?: LateErrorHandler): RequestHandler {
  if (!onLateError) return middleware; // a plain Express chain (tests/contract) still routes the late next()
  return (req, res, next) => {
    let passed = false;
    middleware(req, res, (error?: unknown) => {
      if (!passed) {
        passed = true;
        return next(error);
      }
      if (error !== undefined && error !== null) onLateError(error, req, res);
    });
  };
}

/**
 * A refusal of the request's inputs carries its method: the query of a read is filters and sorts
 * (`invalid_filter`), that of a write is its options (`transferTo`, `confirm`: `validation_failed`).
 */
function namingTheMethod(middleware: RequestHandler): RequestHandler {
  return (req, res, next) =>
    middleware(req, res, (error?: unknown) =>
      next(error instanceof Error ? Object.assign(error, { method: req.method }) : error),
    );
}

/**
 * HEAD is GET without the body (RFC 9110 §9.3.2: a general-purpose server supports both): download
 * managers and media players ask for a file's size and validators first. The validator knows only the
 * contract's methods, so the request is looked up as the GET; Express then runs the GET route (it routes
 * HEAD there itself) and Node sends no body for a HEAD. Reads that count (a resource's views and
 * downloads) do not count a HEAD.
 */
function headAsGet(findOperation: RequestHandler): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'HEAD') return findOperation(req, res, next);
    req.method = 'GET';
    const asHead = (error?: unknown) => {
      req.method = 'HEAD';
      // a path without a GET: the validator's 405 named the method it was asked about
      if (error instanceof Error && (error as Error & { status?: number }).status === 405)
        error.message = 'HEAD method not allowed';
      next(error);
    };
    try {
      findOperation(req, res, asHead);
    } catch (error) {
      asHead(error);
    }
  };
}

function inSequence(handlers: RequestHandler[]): RequestHandler {
  const done: RequestHandler = (_req, _res, next) => next();
  return handlers.reduceRight<RequestHandler>(
    (rest, handler) => (req, res, next) =>
      handler(req, res, (error?: unknown) =>
        error === undefined || error === null ? rest(req, res, next) : next(error),
      ),
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
    const operation = (
      req as Request & {
        openapi?: { schema?: { deprecated?: boolean; 'x-sunset'?: string; 'x-deprecated-at'?: string } };
      }
    ).openapi?.schema;
    if (operation?.deprecated) {
      const since = operation['x-deprecated-at']
        ? Math.floor(Date.parse(operation['x-deprecated-at']) / 1000)
        : undefined;
      res.setHeader('Deprecation', since ? `@${since}` : 'true');
      if (operation['x-sunset']) res.setHeader('Sunset', new Date(operation['x-sunset']).toUTCString());
    }
    next();
  };
}
