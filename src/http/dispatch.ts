// Per-request cost on light routes (docs/performance.md): Express walks one router layer per
// middleware and tries every route of a table in turn. Two helpers cut that walk without changing
// what a request meets: a fixed chain run as one layer, and a route table that jumps straight to
// the route of the operation the contract lookup already found.
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';

type Next = (error?: unknown) => void;

/**
 * Runs middleware one after another as a single router layer, with Express's own rules: a thrown
 * error or a rejected promise goes to `next(error)`, `next()` moves on. Only for middleware that
 * never calls `next('route')` or `next('router')` (nothing in a surface chain does).
 */
export function sequence(handlers: RequestHandler[]): RequestHandler {
  const run = (index: number, req: Request, res: Response, next: Next): void => {
    if (index === handlers.length) {
      next();
      return;
    }
    const step = continuation(index, req, res, next);
    try {
      const returned = handlers[index]!(req, res, step as NextFunction) as unknown;
      if (returned && typeof (returned as Promise<unknown>).then === 'function') {
        (returned as Promise<unknown>).then(undefined, (error: unknown) =>
          step(error ?? new Error('Rejected promise')),
        );
      }
    } catch (error) {
      step(error);
    }
  };
  // The per-request callback is returned as an anonymous function: tsx keeps the names of functions
  // assigned to variables by defining a property on each one, which costs on every request.
  function continuation(index: number, req: Request, res: Response, next: Next): Next {
    let settled = false;
    return (error) => {
      if (settled) return;
      settled = true;
      if (error !== undefined && error !== null) next(error);
      else run(index + 1, req, res, next);
    };
  }
  return (req, res, next) => run(0, req, res, next);
}

/** What a router keeps per registered route (router 2.x internals, read-only here). */
interface RouteLayer {
  route?: { path: unknown; methods: Record<string, boolean> };
  match(path: string): { params: Record<string, string> } | false;
  handleRequest(req: Request, res: Response, next: NextFunction): void;
}

const SIMPLE_PATH = /^(\/([A-Za-z0-9._~-]+|:[A-Za-z_][A-Za-z0-9_]*))+$/;

/** Two simple paths that one request path could both match (same depth, literals agree). */
function overlap(a: string, b: string): boolean {
  const left = a.split('/');
  const right = b.split('/');
  return (
    left.length === right.length &&
    left.every((segment, i) => segment === right[i] || segment.startsWith(':') || right[i]!.startsWith(':'))
  );
}

/**
 * The routes of every module in one table, reached in one step when the request's operation is
 * known (`req.openapi.expressRoute`, set by the contract lookup) and exactly one route of that
 * method could answer the path: then walking the table would end at that same route. Anything
 * else (two routes that could both match, paths with patterns, middleware in the table, HEAD
 * served by GET) walks the table as Express always does.
 */
export function routeTable(register: (router: Router) => void): RequestHandler {
  const table = Router();
  register(table);
  let direct: Map<string, RouteLayer> | undefined;

  const build = (): Map<string, RouteLayer> => {
    const layers = (table as unknown as { stack: RouteLayer[] }).stack;
    const byKey = new Map<string, RouteLayer>();
    if (
      layers.some(
        (layer) => !layer.route || typeof layer.route.path !== 'string' || !SIMPLE_PATH.test(layer.route.path),
      )
    )
      return byKey;
    const routes = layers.map((layer) => ({
      layer,
      path: layer.route!.path as string,
      methods: Object.keys(layer.route!.methods),
    }));
    for (const candidate of routes) {
      if (candidate.methods.includes('_all')) continue;
      for (const method of candidate.methods) {
        const rivals = routes.filter(
          (other) =>
            other !== candidate &&
            (other.methods.includes(method) || other.methods.includes('_all')) &&
            overlap(other.path, candidate.path),
        );
        if (rivals.length === 0) byKey.set(`${method.toUpperCase()} ${candidate.path}`, candidate.layer);
      }
    }
    return byKey;
  };

  return (req, res, next) => {
    direct ??= build();
    const route = (req as Request & { openapi?: { expressRoute?: string } }).openapi?.expressRoute;
    const layer = route === undefined ? undefined : direct.get(`${req.method} ${route}`);
    const match = layer?.match(req.path);
    if (match) {
      // what the router itself does on a match: the route's own (decoded) parameters, then its handlers
      req.route = layer!.route;
      req.params = match.params;
      return layer!.handleRequest(req, res, next);
    }
    return table(req, res, next);
  };
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
const METHODS: readonly Method[] = ['get', 'post', 'put', 'patch', 'delete'];

/** Per segment, 0 for a literal and 1 for a parameter: sorting by it puts `/x/list` before `/x/:id`. */
const specificity = (path: string): number[] => path.split('/').map((segment) => (segment.startsWith(':') ? 1 : 0));

function compareSpecificity(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/**
 * The modules' routes registered most specific first (a literal segment before a parameter at the
 * same place), whatever the order of the module list: `/api/resources/categories` is never read as
 * `/api/resources/:id`. Modules register with get, post, put, patch and delete only.
 */
export function mostSpecificFirst(register: (router: Router) => void): (router: Router) => void {
  const routes: Array<{ method: Method; path: string; handlers: RequestHandler[] }> = [];
  const recorder = Object.fromEntries(
    METHODS.map((method) => [
      method,
      (path: string, ...handlers: RequestHandler[]) => void routes.push({ method, path, handlers }),
    ]),
  ) as unknown as Router;
  register(recorder);
  routes.sort((a, b) => compareSpecificity(specificity(a.path), specificity(b.path)));
  return (router) => {
    for (const { method, path, handlers } of routes) router[method](path, ...handlers);
  };
}
