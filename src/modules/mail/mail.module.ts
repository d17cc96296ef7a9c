import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { mailSendJob } from './mail-send.job.ts';
import { mailRoutes } from './mail.routes.ts';
import { OutboxMessage } from './outbox-message.model.ts';

export const mailModule = defineModule({
  name: 'mail',
  models: { OutboxMessage },
  routes: { api: ({ container }) => (router) => mailRoutes(router, container.services.mail) },
  jobs: [bindJob(mailSendJob, (c) => c.services.mail)],
});
