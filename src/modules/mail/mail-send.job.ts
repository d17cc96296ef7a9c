import { defineJob, payloadOf } from '../../jobs/job.ts';
import { SEND_MAIL_JOB, type MailService, type SendMailJob } from './mail.service.ts';

// the payload enqueue() takes for this name (see jobs/job.ts: JobPayloads)
declare module '../../jobs/job.ts' {
  interface JobPayloads {
    [SEND_MAIL_JOB]: SendMailJob;
  }
}

/** One outbox message to SMTP; the service records each failure and the last one marks it failed. */
export const mailSendJob = defineJob({
  name: SEND_MAIL_JOB,
  payload: payloadOf<SendMailJob>(),
  retry: (config) => ({ limit: config.mail.retryLimit, delaySeconds: config.mail.retryDelaySeconds, backoff: true }),
  handler:
    (mail: MailService) =>
    (data, { attempt }) =>
      mail.deliver(data, attempt),
});
