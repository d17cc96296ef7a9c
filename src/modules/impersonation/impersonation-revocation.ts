// A session lasts only while its parties meet the start rules. The changes that can break them end the
// sessions concerned in the transaction of the change, so the session list and the portal's banner show
// them ended at once: a user's role, status or deletion through the model hooks (the users module
// announces no events), an organization's suspension through its domain event. The token guard, the
// start and the minute job check again, for changes made without the models (a directory's SQL).
import type { Transaction } from 'sequelize';
import type { Subscriber } from '../../shared/domain-events/domain-event.ts';
import { User } from '../users/index.ts';
import type { ImpersonationService } from './impersonation.service.ts';

const HOOK = 'end-revoked-impersonations';
const USER_STANDING = ['role', 'status', 'deletedAt'] as const;

/** Hooks the User model (after it is initialised); a later app in the same process replaces the hooks. */
export function endSessionsOnUserChange(impersonation: ImpersonationService): void {
  const end = async (where: { userId?: string }, transaction?: Transaction | null): Promise<void> => {
    await impersonation.endRevokedSessions(where, transaction ?? undefined);
  };
  // the hooks of a subclass are typed with the base Model: the instance is a User
  const userId = (user: object) => (user as User).id;
  for (const type of ['afterUpdate', 'afterDestroy', 'afterBulkUpdate', 'afterBulkDestroy'] as const)
    User.removeHook(type, HOOK);
  User.addHook('afterUpdate', HOOK, async (user, options) => {
    if (USER_STANDING.some((field) => (user as User).changed(field)))
      await end({ userId: userId(user) }, options.transaction);
  });
  // a soft or permanent delete of one user
  User.addHook('afterDestroy', HOOK, async (user, options) => end({ userId: userId(user) }, options.transaction));
  // bulk writes name no single user: look at every open session (one per admin at most)
  User.addHook('afterBulkUpdate', HOOK, async (options) => {
    const changed = (options as { attributes?: object }).attributes ?? {};
    if (USER_STANDING.some((field) => field in changed)) await end({}, options.transaction);
  });
  User.addHook('afterBulkDestroy', HOOK, async (options) => end({}, options.transaction));
}

/** A suspended organization's users cannot be impersonated: their open sessions end with the suspension. */
export function endSessionsOnSuspension(impersonation: ImpersonationService): Subscriber {
  return {
    name: 'impersonation.end-on-suspension',
    events: ['organization.suspended'],
    // it writes only the module's own rows (and their audit entries), in the suspension's transaction
    mode: 'inline',
    handle: async (event, { transaction }) => {
      await impersonation.endRevokedSessions({ organizationId: String(event.data.id) }, transaction);
    },
  };
}
