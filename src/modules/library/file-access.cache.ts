// What opening a resource's current file decided for one reader, remembered for two seconds: a video
// player sends a range request per seek, and on a two-core machine the access query's round trip to
// PostgreSQL was a tenth of each 1 MB range's cost (docs/performance.md). The same bound as the
// credential cache the request already passed through: a change made through this process (resource,
// version, publication, member record, entitlement: each a domain event) empties it at once, and
// again when the change commits; another instance's change is seen within BRIEF_CACHE_TTL_MS.
import type { Transaction } from 'sequelize';
import type { Actor } from '../../shared/access/actor.ts';
import { BriefCache } from '../../shared/brief-cache.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Subscriber } from '../../shared/domain-events/domain-event.ts';

/** The events after which a remembered decision may be wrong. */
const ACCESS_CHANGING_EVENTS = [
  'resource.published',
  'resource.updated',
  'resource.unpublished',
  'resource.version_added',
  'resource.deleted',
  'resource.entitlement_granted',
  'resource.entitlement_revoked',
  'member.created',
  'member.updated',
  'member.deleted',
  'organization.updated',
  'organization.suspended',
] as const;

export class FileAccessCache<Decision> {
  private readonly decisions: BriefCache<Decision>;

  constructor(clock: Clock) {
    // the credential cache's lifetime, aged by the injected clock so tests can step past it
    this.decisions = new BriefCache<Decision>({ now: () => clock.now().getTime() });
  }

  /** The decision for this reader and resource, or what `decide` finds (undefined: not remembered). */
  get(actor: Actor, resourceId: string, decide: () => Promise<Decision | undefined>): Promise<Decision | undefined> {
    // everything the decision depends on that the request knows: who, in which role and organization
    return this.decisions.get(`${actor.type}:${actor.id}:${actor.role}:${actor.organizationId}:${resourceId}`, decide);
  }

  /** Forgets every decision now and again once the change's transaction commits (a lookup racing it read the old rows). */
  private forgetAll(transaction: Transaction): void {
    this.decisions.clear();
    transaction.afterCommit(() => this.decisions.clear());
  }

  /** Empties the cache in the transaction of any change that can alter a decision (inline: no I/O). */
  invalidation(): Subscriber {
    return {
      name: 'library.forget-file-access',
      events: ACCESS_CHANGING_EVENTS,
      mode: 'inline',
      handle: async (_event, { transaction }) => this.forgetAll(transaction),
    };
  }
}
