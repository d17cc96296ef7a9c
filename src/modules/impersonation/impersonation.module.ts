import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { auditModule } from '../audit/index.ts';
import { authModule } from '../auth/index.ts';
import { mailModule } from '../mail/index.ts';
import { impersonationCloseExpiredJob } from './impersonation-close-expired.job.ts';
import { endSessionsOnSuspension, endSessionsOnUserChange } from './impersonation-revocation.ts';
import { ImpersonationRequest } from './impersonation-request.model.ts';
import { ImpersonationSession } from './impersonation-session.model.ts';
import { impersonationRoutes } from './impersonation.routes.ts';
import { ImpersonationService } from './impersonation.service.ts';

export const impersonationModule = defineModule({
  name: 'impersonation',
  uses: [auditModule, authModule, mailModule],
  models: { ImpersonationSession, ImpersonationRequest },
  services: ({ platform: { db, clock, config }, uses: { audit, auth, tokens, mail } }) => {
    const impersonation = new ImpersonationService({ sequelize: db.sequelize, clock, tokens, audit, mail, config });
    // an impersonation token is refused once its session ended: auth asks this module at every request
    auth.setImpersonationGuard((claims) => impersonation.assertTokenUsable(claims));
    // and a session ends when a change to its admin or target breaks the start rules
    endSessionsOnUserChange(impersonation);
    return { impersonation };
  },
  routes: {
    api:
      ({ services }) =>
      (router) =>
        impersonationRoutes(router, services.impersonation),
  },
  subscribers: ({ services }) => [endSessionsOnSuspension(services.impersonation)],
  jobs: [impersonationCloseExpiredJob],
  handlers: ({ services }) => [bindJob(impersonationCloseExpiredJob, services.impersonation)],
  errors: [
    'read_only_impersonation',
    'impersonation_forbidden',
    'already_impersonating',
    'not_impersonating',
    'impersonation_limit',
  ],
  ownedUserData: [
    {
      type: 'impersonation_sessions',
      description: 'Impersonation sessions of which the user was the target (kept)',
      table: 'impersonation_sessions',
      column: 'target_user_id',
      transferable: false,
    },
  ],
});
