// The one list of modules, in the order they are built: a module comes after the modules it `uses`
// (the container checks it). Models, surface routes, job types, domain event kinds, subscribers and
// what a user owns are derived from it; see shared/module-manifest.ts.
import { activityModule } from './modules/activity/activity.module.ts';
import { apiKeysModule } from './modules/api-keys/api-keys.module.ts';
import { auditModule } from './modules/audit/audit.module.ts';
import { authModule } from './modules/auth/auth.module.ts';
import { chatModule } from './modules/chat/chat.module.ts';
import { crmModule } from './modules/crm/crm.module.ts';
import { coursesModule } from './modules/courses/courses.module.ts';
import { eventsModule } from './modules/events/events.module.ts';
import { generationModule } from './modules/generation/generation.module.ts';
import { healthModule } from './modules/health/health.module.ts';
import { idempotencyModule } from './modules/idempotency/idempotency.module.ts';
import { impersonationModule } from './modules/impersonation/impersonation.module.ts';
import { ingestionModule } from './modules/ingestion/ingestion.module.ts';
import { jobsAdminModule } from './modules/jobs-admin/jobs-admin.module.ts';
import { libraryModule } from './modules/library/library.module.ts';
import { mailModule } from './modules/mail/mail.module.ts';
import { membersModule } from './modules/members/members.module.ts';
import { organizationsModule } from './modules/organizations/organizations.module.ts';
import { resourceCatalogModule } from './modules/resource-catalog/resource-catalog.module.ts';
import { ssoModule } from './modules/sso/sso.module.ts';
import { directoryModule } from './modules/directory/directory.module.ts';
import { resourceReportsModule } from './modules/resource-reports/resource-reports.module.ts';
import { usersModule } from './modules/users/users.module.ts';
import { webhooksModule } from './modules/webhooks/webhooks.module.ts';
import { platformModule } from './shared/platform.module.ts';

export const modules = [
  platformModule,
  healthModule,
  auditModule,
  mailModule,
  apiKeysModule,
  authModule,
  usersModule,
  organizationsModule,
  activityModule,
  impersonationModule,
  idempotencyModule,
  membersModule,
  eventsModule,
  coursesModule,
  webhooksModule,
  ssoModule,
  directoryModule,
  crmModule,
  jobsAdminModule,
  libraryModule,
  resourceCatalogModule,
  resourceReportsModule,
  chatModule,
  ingestionModule,
  generationModule,
] as const;

export type AppModule = (typeof modules)[number];
