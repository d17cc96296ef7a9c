// express-openapi-validator, as this app runs it: three changes to how its internals do their work,
// none to what they check. Each is applied once, when this module is first imported (by openapi.ts);
// a module that has moved fails the start. Review them on each upgrade of the library.
import { createRequire } from 'node:module';
import type { Request } from 'express';

const require = createRequire(import.meta.url);

/**
 * express-openapi-validator recompiles the pattern of every documented path on every request while
 * looking up the route (its cost grew with each module's paths: a quarter of a list request's CPU).
 * path-to-regexp is pure, so the compiled patterns are memoised, keyed by path and options.
 */
function memoisePathToRegexp(): void {
  const modulePath = require.resolve('path-to-regexp', { paths: [require.resolve('express-openapi-validator')] });
  const pathToRegexpModule = require(modulePath) as {
    pathToRegexp: (...args: unknown[]) => unknown;
    memoised?: boolean;
  };
  if (pathToRegexpModule.memoised) return;
  const original = pathToRegexpModule.pathToRegexp;
  const cache = new Map<string, unknown>();
  pathToRegexpModule.pathToRegexp = (path: unknown, options?: unknown) => {
    if (typeof path !== 'string') return original(path, options);
    // lookupRoute passes {sensitive, strict} for every documented path on every request: key on the
    // two flags directly, not JSON.stringify (which cost as much as the lookup it saved)
    const flags = options as { sensitive?: boolean; strict?: boolean } | undefined;
    const plain = !flags || Object.keys(flags).every((name) => name === 'sensitive' || name === 'strict');
    const key = plain
      ? `${path}\u0000${flags?.sensitive ? 's' : ''}${flags?.strict ? 't' : ''}`
      : `${path}\u0000${JSON.stringify(flags)}`;
    let compiled = cache.get(key);
    if (!compiled) cache.set(key, (compiled = original(path, options)));
    return compiled;
  };
  pathToRegexpModule.memoised = true;
}
memoisePathToRegexp();

type MutatorParameter = { $ref?: string; in?: string; content?: unknown; schema?: { $ref?: string; type?: unknown } };
type Mutator = {
  _apiDocs: { components?: { parameters?: Record<string, MutatorParameter> } };
  modifyRequest(req: Request): void;
};

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
  const { RequestParameterMutator } = require(modulePath) as {
    RequestParameterMutator: { prototype: Mutator & { idleSkipped?: boolean } };
  };
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
        return (
          !parameter.schema?.$ref && typeof parameter.schema?.type === 'string' && SCALARS.has(parameter.schema.type)
        );
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
  const modulePath = require.resolve('express-openapi-validator/dist/middlewares/util.js', {
    paths: [require.resolve('express-openapi-validator')],
  });
  const util = require(modulePath) as {
    useAjvCache: (ajv: AjvLike, schema: object, key: string) => unknown;
    sharedPartsOnce?: boolean;
  };
  if (util.sharedPartsOnce) return;
  if (typeof util.useAjvCache !== 'function')
    throw new Error('express-openapi-validator no longer has useAjvCache: review registerSharedPartsOnce');
  const original = util.useAjvCache;
  // per AJV instance: the contract's components object -> the paths registered with it, under an id
  const registered = new WeakMap<AjvLike, WeakMap<object, { paths: object | undefined; id: string }>>();
  let ids = 0;
  const idOf = (ajv: AjvLike, paths: object | undefined, components: object): string => {
    let byComponents = registered.get(ajv);
    if (!byComponents) registered.set(ajv, (byComponents = new WeakMap()));
    // the validator hands the same two objects to every schema of one contract
    const known = byComponents.get(components);
    if (known && known.paths === paths) return known.id;
    const id = `urn:guildhall:contract:${++ids}`;
    ajv.addSchema({ $id: id, paths: paths ?? {}, components });
    byComponents.set(components, { paths, id });
    return id;
  };
  util.useAjvCache = (ajv, schema, key) => {
    const cached = ajv.getSchema(key);
    if (cached) return cached;
    const { paths, components, ...own } = schema as SharedParts & Record<string, unknown>;
    if (!components || typeof components !== 'object') return original(ajv, schema, key);
    ajv.addSchema(pointRefsAt(own, idOf(ajv, paths, components)), key);
    return ajv.getSchema(key);
  };
  util.sharedPartsOnce = true;
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
      object[name] =
        name === '$ref' && typeof inner === 'string' && /^#\/(components|paths)\//.test(inner)
          ? `${id}${inner}`
          : copy(inner);
    }
    return object;
  };
  return copy(schema) as object;
}
registerSharedPartsOnce();
