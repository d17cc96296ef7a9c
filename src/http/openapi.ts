import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import type { NextFunction, Request, Response } from 'express';
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
    const key = `${path}\u0000${JSON.stringify(options ?? {})}`;
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

/** Every request is checked against the contract; responses too when asked (always in tests). */
export function contractValidator(contract: Contract, validateResponses: boolean) {
  return OpenApiValidator.middleware({
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
  });
}

/**
 * Operations marked `deprecated: true` announce it (RFC 9745 Deprecation, RFC 8594 Sunset). The
 * sunset date comes from the operation's `x-sunset` extension.
 */
export function deprecationHeaders() {
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
