// What a module contributes to the job catalog and the domain event fan-out, in one object, for the
// module manifest to carry: catalog.ts would spread each module's `jobs`, the container would
// `declare` each `events` catalog and `subscribe` each subscriber.
import type { EventCatalog, Subscriber } from '../shared/domain-events/domain-event.ts';
import type { AnyJobType } from './job.ts';

export interface ModuleJobsAndEvents<D = never> {
  /** The kinds this module announces (public ones become webhooks). */
  events?: EventCatalog;
  /** Its job types, each with its handler factory (`<name>.job.ts`). */
  jobs?: readonly AnyJobType[];
  /** Its reactions to other modules' events, built from its dependencies. */
  subscribers?: (deps: D) => Subscriber[];
}

