// The JSON API: problem+json errors, the contract validating every request (and every response in
// tests). Order: find the operation -> credential (401 before any input is examined) -> limits ->
// query shape and NULs in the URL -> body guards -> JSON parser (bytes that are not UTF-8, NULs, lone
// surrogates, numbers JSON.parse changed and nesting past 32 levels refused) -> contract validation
// -> the routes. An input refusal (400, 415) of a caller the operation is not open to is its 403.
// Every 401 carries a WWW-Authenticate challenge.
import express, { Router, type RequestHandler } from 'express';
import { withBearerChallenge } from '../authenticate.ts';
import { callerRefusedFirst } from '../caller-gate.ts';
import { hasBody } from '../body-guards.ts';
import { noteSuspectEscape, rejectNulInUrl, rejectUnstorableJson } from '../text-guard.ts';
import { bodyGuard, JSON_BODY_LIMIT_BYTES } from './body.ts';
import { contractPhases, exceptCredentialFree, requireCredential, type Contract } from '../openapi.ts';
import { rejectMisshapenQuery } from '../query-shape.ts';
import { routeNotFound } from '../problem.ts';
import { afterCredential, apiCredential, type SurfaceDeps } from './credential.ts';
import { mostSpecificFirst, routeTable, sequence } from '../dispatch.ts';
import { surfaceErrorHandler } from './failure.ts';
import { problemJson } from './renderers.ts';

import type { ApiRoutes } from './surface-routes.ts';

export interface ApiSurfaceOptions {
  contract: Contract;
  routes: ApiRoutes[];
}

export function apiSurface(deps: SurfaceDeps, { contract, routes }: ApiSurfaceOptions): Router {
  const { config, logger } = deps;
  const render = withBearerChallenge(problemJson(config.baseUrl));
  const onError = surfaceErrorHandler(render, logger);
  // a response that drifted from the contract (tests validate responses) is a 500, never a hang
  const contractCheck = contractPhases(contract, config.validateResponses, (error, req, res) =>
    onError(error, req, res, () => {}),
  );
  const parseJson = express.json({
    limit: JSON_BODY_LIMIT_BYTES,
    type: ['application/json', 'application/*+json'],
    verify: noteSuspectEscape,
  });
  const surface = Router();
  // The chain runs as one router layer, and the routing table jumps to the operation's route (see
  // http/dispatch.ts): the walk through layers and routes was a sixth of a light request's CPU.
  surface.use(
    sequence([
      contractCheck.findOperation,
      ...exceptCredentialFree([apiCredential(deps), requireCredential(contract), ...afterCredential(deps)]),
      rejectMisshapenQuery(contract),
      rejectNulInUrl,
      bodyGuard(render, { maxBytes: JSON_BODY_LIMIT_BYTES, timeoutMs: config.http.bodyTimeoutMs }),
      // most GETs have no body
      ((req, res, next) => (hasBody(req) ? parseJson(req, res, next) : next())) as RequestHandler,
      rejectUnstorableJson,
      contractCheck.validate,
    ]),
  );
  // a caller the operation is not open to gets 403 before any complaint about its inputs
  surface.use(callerRefusedFirst());
  // One routing table for every operation: a request walks it once instead of entering a router per module.
  surface.use(
    routeTable(
      mostSpecificFirst((table) =>
        routes.forEach((register) => {
          register(table);
        }),
      ),
    ),
  );
  surface.use(routeNotFound());
  surface.use(onError);
  return surface;
}
