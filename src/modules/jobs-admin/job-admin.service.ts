// Job status for platform admins: what ran, what is waiting, what failed and why.
import type { Actor } from '../../shared/access/actor.ts';
import { assertCan } from '../../shared/access/policy.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { AuditService } from '../audit/index.ts';
import { scopeFor } from '../../shared/access/scope.ts';
import { errors } from '../../shared/errors.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import type { JobAdminRepository, JobRow, JobState } from './job-admin.repository.ts';

export class JobAdminService {
  constructor(
    private readonly jobs: JobAdminRepository,
    private readonly deps: { queue?: JobQueue; audit?: AuditService } = {},
  ) {}

  async list(actor: Actor, filter: { name?: string; state?: JobState }, page: PageRequest): Promise<Page<JobRow>> {
    const scope = scopeFor(actor, 'job', 'read');
    const [rows, total] = await Promise.all([
      this.jobs.find(scope, filter, page.itemsPerPage, offsetOf(page)),
      this.jobs.count(scope, filter),
    ]);
    return pageOf(rows, total, page);
  }

  async get(actor: Actor, id: string): Promise<JobRow> {
    const [job] = await this.jobs.find(scopeFor(actor, 'job', 'read'), { id }, 1, 0);
    if (!job) throw errors.notFound('Job', id);
    return job;
  }

  /** Runs a failed job again (pg-boss retry: back to `retry`, picked up by the next poll). Audited. */
  async retry(actor: Actor, id: string): Promise<JobRow> {
    return this.change(actor, id, 'retry', (job) => job.state === 'failed', 'Only a failed job can be retried');
  }

  /** Cancels a job that has not finished (created, retry or active). Audited. */
  async cancel(actor: Actor, id: string): Promise<JobRow> {
    return this.change(
      actor,
      id,
      'cancel',
      (job) => ['created', 'retry', 'active'].includes(job.state),
      'Only a job that has not finished can be cancelled',
    );
  }

  private async change(
    actor: Actor,
    id: string,
    command: 'retry' | 'cancel',
    allowed: (job: JobRow) => boolean,
    refusal: string,
  ): Promise<JobRow> {
    assertCan(actor, 'platform:admin');
    const { queue, audit } = this.deps;
    if (!queue || !audit) throw new Error('JobAdminService needs the queue and the audit service to change jobs');
    const job = await this.get(actor, id);
    if (job.archived || !allowed(job)) throw errors.conflict(refusal);
    const result = (await queue.pgBoss[command](job.name, id)) as unknown as { affected?: number } | undefined;
    if (result && result.affected === 0) throw errors.conflict(refusal);
    const after = await this.get(actor, id);
    await audit.record(actor, {
      action: command === 'retry' ? 'job.retried' : 'job.cancelled',
      targetType: 'job',
      targetId: id,
      organizationId: null,
      before: { name: job.name, state: job.state, retryCount: job.retry_count },
      after: { name: after.name, state: after.state, retryCount: after.retry_count },
    });
    return after;
  }
}
