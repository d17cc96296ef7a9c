// AdminJS's JSON API looks an action up by the name in the URL and calls its handler without checking
// that it exists: `/api/resources/users/actions/bogus` (or an unknown resource) was a 500 with a
// TypeError in the log. An action the resource does not have, at the kind of route it is not for, is a
// 404 here instead, in the body the portal's other refusals use.
import type AdminJS from 'adminjs';
import type { RequestHandler } from 'express';

const ACTION_ROUTE = /^\/api\/resources\/([^/]+)\/(?:actions\/([^/]+)|records\/[^/]+\/([^/]+)|bulk\/([^/]+))\/?$/;

type Decorated = ReturnType<AdminJS['resources'][number]['decorate']>['actions'][string];

/** Whether the route's kind (actions/, records/<id>/, bulk/) is one the action is of. */
function fitsRoute(action: Decorated, match: RegExpExecArray): boolean {
  if (match[2] !== undefined) return action.isResourceType();
  return match[3] !== undefined ? action.isRecordType() : action.isBulkType();
}

export function refuseUnknownActions(admin: AdminJS): RequestHandler {
  return (req, res, next) => {
    const match = ACTION_ROUTE.exec(req.path);
    if (!match) return next();
    let known = false;
    try {
      const resourceId = decodeURIComponent(match[1]!);
      const name = decodeURIComponent(match[2] ?? match[3] ?? match[4]!);
      // by its decorated id, as AdminJS's own findResource (an option may rename a resource)
      const resource = admin.resources.find((candidate) => candidate.decorate().id() === resourceId);
      const actions = resource?.decorate().actions;
      const action = actions && Object.hasOwn(actions, name) ? actions[name] : undefined;
      known = action !== undefined && fitsRoute(action, match);
    } catch {
      known = false; // a name that is not valid percent-encoding names nothing
    }
    if (known) return next();
    res.status(404).json({ code: 'not_found', message: 'No such action of this resource' });
  };
}
