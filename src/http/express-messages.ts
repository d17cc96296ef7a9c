// Request and response objects created with Express's prototypes already in place.
//
// Express gives every request and response its own prototypes when it receives them
// (`Object.setPrototypeOf(req, app.request)` in `app.handle`). In V8 an object whose prototype changes
// after it was built leaves the fast path: on a bare Express 5 app with one route (32 connections),
// 3,800-5,000 requests/s, and scavenges of 4-5 ms that promote a third of the young generation into
// the old one; with the objects created as below, 14,000-17,600 requests/s and 0.6 ms scavenges that
// promote nothing (docs/performance.md). Express's own call then finds the prototype in place and does
// nothing. Node's http server takes the classes it creates (`IncomingMessage`, `ServerResponse`).
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

type MessageClasses = { IncomingMessage: typeof IncomingMessage; ServerResponse: typeof ServerResponse };

/** One pair per app: every server over it creates objects with the same prototypes. */
const classesOf = new WeakMap<Express, MessageClasses>();

/** The classes for `http.createServer(options, app)`; makes their prototypes the app's `request` and `response`. */
export function expressMessageClasses(app: Express): MessageClasses {
  let classes = classesOf.get(app);
  if (!classes) classesOf.set(app, (classes = createClasses(app)));
  return classes;
}

function createClasses(app: Express): MessageClasses {
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse {}
  adoptPrototype(AppRequest.prototype, app.request);
  adoptPrototype(AppResponse.prototype, app.response);
  app.request = AppRequest.prototype as unknown as Express['request'];
  app.response = AppResponse.prototype as unknown as Express['response'];
  return { IncomingMessage: AppRequest, ServerResponse: AppResponse as unknown as typeof ServerResponse };
}

/**
 * Puts `prototype` where the app's own request (or response) prototype was: same parent (Express's
 * request methods, then Node's), same own properties (`app`). Objects that get it from Express's
 * `setPrototypeOf` (a server created without these classes, as supertest's) behave as before.
 */
function adoptPrototype(prototype: object, appPrototype: object): void {
  Object.setPrototypeOf(prototype, Object.getPrototypeOf(appPrototype));
  const { constructor: _constructor, ...own } = Object.getOwnPropertyDescriptors(appPrototype);
  Object.defineProperties(prototype, own);
}
