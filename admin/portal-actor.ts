// The Admin Portal's session user, turned into the same Actor the API uses, re-checked on every
// action: an admin deactivated or demoted since logging in loses the portal at once.
import { randomUUID } from 'node:crypto';
import type { CurrentAdmin } from 'adminjs';
import type { Actor } from '../src/shared/access/actor.ts';
import { errors } from '../src/shared/errors.ts';
import { User } from '../src/modules/users/user.model.ts';

export interface PortalAdmin extends CurrentAdmin {
  id: string;
  email: string;
  /** The portal login included a valid one-time code. */
  mfaVerified: boolean;
}

export async function portalActor(
  currentAdmin: CurrentAdmin | undefined,
  organizationId: string | null = null,
): Promise<Actor> {
  const admin = currentAdmin as PortalAdmin | undefined;
  const user = admin?.id ? await User.findByPk(admin.id) : null;
  if (!user || user.status !== 'active' || user.role !== 'ROLE_PLATFORM_ADMIN')
    throw errors.unauthenticated('Log in to the Admin Portal again');
  return {
    type: 'user',
    id: user.id,
    organizationId,
    role: user.role,
    mfaVerified: admin!.mfaVerified === true,
    requestId: `portal-${randomUUID()}`,
  };
}
