// The dashboard's data (AdminJS's GET /admin/api/dashboard): the figures plus the admin's own MFA state.
import type { PageContext } from 'adminjs';
import type { AppContext as Container } from '../../src/app-context.ts';
import { ROLE_LABELS, STATUS_LABELS } from '../../src/modules/users/user.labels.ts';
import { portalActor } from '../portal-actor.ts';
import { dashboardFigures } from './dashboard.repository.ts';
import { PLAN_LABELS } from './organizations.options.ts';

export function dashboardHandler(container: Container) {
  return async (_request: unknown, _response: unknown, context: PageContext) => {
    const actor = await portalActor(context.currentAdmin);
    const [figures, me] = await Promise.all([
      dashboardFigures(container, actor),
      container.services.auth.currentUser(actor),
    ]);
    return {
      ...figures,
      mfa: { enabled: me.mfaEnabledAt !== null },
      labels: { roles: ROLE_LABELS, statuses: STATUS_LABELS, plans: PLAN_LABELS },
    };
  };
}
