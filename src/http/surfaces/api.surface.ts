// The JSON API: problem+json errors, the contract validating every request (and every response in
// tests). Order: find the operation -> credential (401 before any input is examined) -> limits ->
// body guards -> JSON parser -> contract validation -> the routes.
import express, { Router, type RequestHandler } from 'express';
import type { Container } from '../../container.ts';
import { hasBody } from '../body-guards.ts';
import { bodyGuard, JSON_BODY_LIMIT_BYTES } from './body.ts';
import { contractPhases, rejectMisshapenQuery, requireCredential, type Contract } from '../openapi.ts';
import { routeNotFound } from '../problem.ts';
import { afterCredential, apiCredential } from './credential.ts';
import { surfaceErrorHandler } from './failure.ts';
import { problemJson } from './renderers.ts';

/** A module's JSON routes, registered on the surface's one routing table with full /api paths. */
export type ApiRoutes = (router: Router) => void;

export interface ApiSurfaceOptions {
  contract: Contract;
  routes: ApiRoutes[];
}

export function apiSurface(container: Container, { contract, routes }: ApiSurfaceOptions): Router {
  const { config, logger } = container;
  const render = problemJson(config.baseUrl);
  const contractCheck = contractPhases(contract, config.validateResponses);
  const parseJson = express.json({ limit: JSON_BODY_LIMIT_BYTES, type: ['application/json', 'application/*+json'] });
  const surface = Router();
  surface.use(contractCheck.findOperation);
  surface.use(apiCredential(container));
  surface.use(requireCredential(contract));
  surface.use(...afterCredential(container));
  surface.use(rejectMisshapenQuery(contract));
  surface.use(bodyGuard(render, { maxBytes: JSON_BODY_LIMIT_BYTES, timeoutMs: config.http.bodyTimeoutMs }));
  surface.use(((req, res, next) => (hasBody(req) ? parseJson(req, res, next) : next())) as RequestHandler); // most GETs have none
  surface.use(contractCheck.validate);
  // One routing table for every operation: a request walks it once instead of entering a router per module.
  const table = Router();
  for (const register of routes) register(table);
  surface.use(table);
  surface.use(routeNotFound());
  surface.use(surfaceErrorHandler(render, logger));
  return surface;
}
