import { Op, type Transaction, type WhereOptions } from 'sequelize';
import type { Mailer } from '../../integrations/mail/mailer.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Actor } from '../../shared/access/actor.ts';
import { assertCan } from '../../shared/access/policy.ts';
import type { Clock } from '../../shared/clock.ts';
import { escapeLike } from '../../shared/sql.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import { renderMail, type MailMessage, type MailTemplate } from './mail.templates.ts';
import { OutboxMessage, type OutboxStatus } from './outbox-message.model.ts';

export const SEND_MAIL_JOB = 'mail.send';

export interface SendMailJob {
  messageId: string;
}

export interface OutboxFilter {
  to?: string;
  template?: MailTemplate;
  status?: OutboxStatus;
}

/**
 * Every e-mail is first a row in `mail_outbox`, written in the caller's transaction together with the
 * job that sends it, so a rolled-back change sends nothing and a committed one is never forgotten.
 * Without SMTP_URL (development and tests only: production refuses to start without it) the row stays
 * in the outbox. Administrators read only its redacted text: generated passwords and password links
 * are for the recipient alone.
 */
export class MailService {
  constructor(private readonly deps: { queue: JobQueue; clock: Clock; retryLimit: number; mailer?: Mailer }) {}

  get delivers(): boolean {
    return this.deps.mailer !== undefined;
  }

  async send(
    to: { address: string; userId?: string | null },
    message: MailMessage,
    transaction?: Transaction,
  ): Promise<OutboxMessage> {
    const rendered = renderMail(message);
    const row = await OutboxMessage.create(
      {
        template: message.template,
        toAddress: to.address,
        userId: to.userId ?? null,
        subject: rendered.subject,
        textBody: rendered.text,
        htmlBody: rendered.html,
        redactedText: rendered.redactedText,
        status: this.delivers ? 'queued' : 'outbox',
      },
      { transaction },
    );
    if (this.delivers) await this.deps.queue.enqueue(SEND_MAIL_JOB, { messageId: row.id }, { transaction });
    return row;
  }

  /**
   * The mail.send job. A failure is recorded and rethrown so the queue retries with backoff; after
   * the last attempt the message is marked failed. Once sent, the body is dropped: it may carry a
   * generated password or a reset link, which must not sit readable in the database.
   */
  async deliver(job: SendMailJob, attempt: number): Promise<void> {
    const row = await OutboxMessage.findByPk(job.messageId);
    if (!row || row.status !== 'queued' || !this.deps.mailer) return; // already handled: at-least-once delivery
    try {
      const { messageId } = await this.deps.mailer.send({
        to: row.toAddress,
        subject: row.subject,
        text: row.textBody ?? '',
        html: row.htmlBody ?? '',
      });
      await row.update({
        status: 'sent',
        sentAt: this.deps.clock.now(),
        attempts: row.attempts + 1,
        providerMessageId: messageId,
        lastError: null,
        textBody: null,
        htmlBody: null,
      });
    } catch (error) {
      const finalAttempt = attempt >= this.deps.retryLimit;
      await row.update({
        status: finalAttempt ? 'failed' : 'queued',
        attempts: row.attempts + 1,
        lastError: String((error as Error).message ?? error).slice(0, 1000),
      });
      throw error;
    }
  }

  async list(actor: Actor, filter: OutboxFilter, page: PageRequest): Promise<Page<OutboxMessage>> {
    assertCan(actor, 'users:read');
    const where: WhereOptions<OutboxMessage> = {
      ...(filter.to ? { toAddress: { [Op.iLike]: escapeLike(filter.to) } } : {}),
      ...(filter.template ? { template: filter.template } : {}),
      ...(filter.status ? { status: filter.status } : {}),
    };
    const { rows, count } = await OutboxMessage.findAndCountAll({
      where,
      order: [
        ['createdAt', 'DESC'],
        ['id', 'ASC'],
      ],
      limit: page.itemsPerPage,
      offset: offsetOf(page),
    });
    return pageOf(rows, count, page);
  }
}
