import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { mailSendJob } from './mail-send.job.ts';
import { mailRoutes } from './mail.routes.ts';
import { MailService } from './mail.service.ts';
import { OutboxMessage } from './outbox-message.model.ts';

export const mailModule = defineModule({
  name: 'mail',
  models: { OutboxMessage },
  services: ({ platform: { queue, clock, config, mailer } }) => ({
    mail: new MailService({ queue, clock, retryLimit: config.mail.retryLimit, mailer }),
  }),
  routes: {
    api:
      ({ services }) =>
      (router) =>
        mailRoutes(router, services.mail),
  },
  jobs: [mailSendJob],
  handlers: ({ services }) => [bindJob(mailSendJob, services.mail)],
});
