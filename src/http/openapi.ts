import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import type { NextFunction, Request, Response } from 'express';
import { parse } from 'yaml';

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
