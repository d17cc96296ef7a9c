// What a directory changes, whoever carries it (our SCIM server, the identity service's webhooks or a
// pull sync): its users and groups, and through them the Guildhall users it manages. A directory user
// is linked to the account with its e-mail inside the directory's organization, or one is created
// (active, no password); an account of another organization is never touched (the same "not
// available" answer as a duplicate, docs/access.md). Roles follow group membership through the
// directory's mapping, the highest role winning, recomputed on every membership change; a directory
// never grants ROLE_PLATFORM_ADMIN. Deactivation deactivates the account at once (its tokens are
// refused within the credential cache's bound) and lapses its member record; deletion deactivates,
// or deletes the account where the directory is configured to. Every change is audited with the
// directory as the actor.
// Split by use case: directory-user-provisioning.ts (users; their accounts: directory-user-accounts.ts) and
// directory-group-provisioning.ts (groups, membership and roles), sharing directory-provisioning.base.ts.
import type { DirectoryProvisioningDeps } from './directory-provisioning.base.ts';
import { DirectoryGroupProvisioning } from './directory-group-provisioning.ts';
import { DirectoryUserProvisioning } from './directory-user-provisioning.ts';

export {
  type DirectoryGroupInput,
  type DirectoryGroupRow,
  type DirectoryProvisioningDeps,
  type DirectoryUserChange,
  type DirectoryUserInput,
  type DirectoryUserRow,
  type DirectoryUserWithGroups,
  directoryRoleFor,
} from './directory-provisioning.base.ts';

/** What a directory changes, whoever carries it (SCIM, the identity service's webhooks, a pull sync). */
export class DirectoryProvisioning {
  readonly users: DirectoryUserProvisioning;
  readonly groups: DirectoryGroupProvisioning;

  constructor(deps: DirectoryProvisioningDeps) {
    this.users = new DirectoryUserProvisioning(deps);
    this.groups = new DirectoryGroupProvisioning(deps);
  }
}
