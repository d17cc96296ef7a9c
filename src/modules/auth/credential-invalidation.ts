// The credential caches (auth's per-user view, the API keys' organization view) must not outlive a
// change: any change to a user or an organization through the models drops this instance's cached
// view at once, and again after the commit (a lookup racing the transaction still read the old row).
// A plan or suspension change must reach the next request, not the next cache refresh.
import type { Transaction } from 'sequelize';
import { Organization } from '../organizations/index.ts';
import { User } from '../users/index.ts';

interface Caches {
  forgetUser(id?: string): void;
  forgetOrganizations(): void;
}

const nowAndAfterCommit = (forget: () => void, transaction?: Transaction | null) => {
  forget();
  transaction?.afterCommit(forget);
};

/** Hooks the models (after they are initialised) so that every write forgets what the caches hold of it. */
export function invalidateCredentialsOnChange(caches: Caches): void {
  const forgetUser = (id: string | undefined, transaction?: Transaction | null) =>
    nowAndAfterCommit(() => caches.forgetUser(id), transaction);
  User.addHook('afterSave', 'forget-credentials', (user, options) =>
    forgetUser(String(user.get('id')), options.transaction),
  );
  User.addHook('afterDestroy', 'forget-credentials', (user, options) =>
    forgetUser(String(user.get('id')), options.transaction),
  );
  User.addHook('afterBulkUpdate', 'forget-credentials', (options) => forgetUser(undefined, options.transaction));
  User.addHook('afterBulkDestroy', 'forget-credentials', (options) => forgetUser(undefined, options.transaction));
  Organization.addHook('afterSave', 'forget-credentials', (_organization, options) =>
    nowAndAfterCommit(() => caches.forgetOrganizations(), options.transaction),
  );
}
