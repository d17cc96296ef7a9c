import type { components } from '../../types/openapi.d.ts';
import type { JobRow } from './job-admin.repository.ts';

export type JobDto = components['schemas']['Job'];

/** pg-boss stores a thrown error as {name, message, stack} in output. */
function lastErrorOf(output: unknown): string | null {
  const message = (output as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : null;
}

export function toJobDto(job: JobRow): JobDto {
  return {
    id: job.id,
    name: job.name,
    state: job.state,
    data: job.data,
    // pg-boss counts retries when a job is fetched again; runs so far include the first
    attempts: job.retry_count + (job.started_on ? 1 : 0),
    retryLimit: job.retry_limit,
    lastError: lastErrorOf(job.output),
    output: job.output ?? null,
    createdOn: new Date(job.created_on).toISOString(),
    startAfter: new Date(job.start_after).toISOString(),
    startedOn: job.started_on ? new Date(job.started_on).toISOString() : null,
    completedOn: job.completed_on ? new Date(job.completed_on).toISOString() : null,
    archived: job.archived,
  };
}
