// Job status for platform admins: what ran, what is waiting, what failed and why.
import type { Actor } from '../../shared/access/actor.ts';
import { scopeFor } from '../../shared/access/scope.ts';
import { errors } from '../../shared/errors.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import type { JobAdminRepository, JobRow, JobState } from './job-admin.repository.ts';

export class JobAdminService {
  constructor(private readonly jobs: JobAdminRepository) {}

  async list(actor: Actor, filter: { name?: string; state?: JobState }, page: PageRequest): Promise<Page<JobRow>> {
    const scope = scopeFor(actor, 'job', 'read');
    const [rows, total] = await Promise.all([this.jobs.find(scope, filter, page.itemsPerPage, offsetOf(page)), this.jobs.count(scope, filter)]);
    return pageOf(rows, total, page);
  }

  async get(actor: Actor, id: string): Promise<JobRow> {
    const [job] = await this.jobs.find(scopeFor(actor, 'job', 'read'), { id }, 1, 0);
    if (!job) throw errors.notFound('Job', id);
    return job;
  }
}
