import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { impersonationCloseExpiredJob } from './impersonation-close-expired.job.ts';
import { ImpersonationRequest } from './impersonation-request.model.ts';
import { ImpersonationSession } from './impersonation-session.model.ts';
import { impersonationRoutes } from './impersonation.routes.ts';

export const impersonationModule = defineModule({
  name: 'impersonation',
  models: { ImpersonationSession, ImpersonationRequest },
  routes: { api: ({ container }) => (router) => impersonationRoutes(router, container.services.impersonation) },
  jobs: [bindJob(impersonationCloseExpiredJob, (c) => c.services.impersonation)],
  errors: ['read_only_impersonation', 'impersonation_forbidden', 'already_impersonating', 'not_impersonating', 'impersonation_limit'],
  ownedUserData: [
    { type: 'impersonation_sessions', description: 'Impersonation sessions of which the user was the target (kept)', table: 'impersonation_sessions', column: 'target_user_id', transferable: false },
  ],
});
