// Job status for platform admins: what ran, what is waiting, what failed and why.
import type { Actor } from '../../shared/access/actor.ts';
import { assertCan } from '../../shared/access/policy.ts';
import { errors } from '../../shared/errors.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import type { JobAdminRepository, JobRow, JobState } from './job-admin.repository.ts';

export class JobAdminService {
  constructor(private readonly jobs: JobAdminRepository) {}

  async list(actor: Actor, filter: { name?: string; state?: JobState }, page: PageRequest): Promise<Page<JobRow>> {
    assertCan(actor, 'jobs:read');
    const [rows, total] = await Promise.all([this.jobs.find(filter, page.itemsPerPage, offsetOf(page)), this.jobs.count(filter)]);
    return pageOf(rows, total, page);
  }

  async get(actor: Actor, id: string): Promise<JobRow> {
    assertCan(actor, 'jobs:read');
    const [job] = await this.jobs.find({ id }, 1, 0);
    if (!job) throw errors.notFound('Job', id);
    return job;
  }
}
