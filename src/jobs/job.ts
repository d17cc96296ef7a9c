import type { Config } from '../config.ts';
import type { Logger } from '../shared/logger.ts';

export interface JobContext {
  jobId: string;
  /** 0 on the first run; retries count up. */
  attempt: number;
  logger: Logger;
}

/** Runs one job. Must be idempotent: the queue delivers at least once. */
export type JobHandler<P extends object> = (data: P, context: JobContext) => Promise<void>;

export interface RetryPolicy {
  /** Runs after the first one; 0 never retries. */
  limit: number;
  delaySeconds: number;
  /** Doubles the delay on each retry (with jitter, pg-boss's retryBackoff). */
  backoff: boolean;
}

export const DEFAULT_RETRY: RetryPolicy = { limit: 5, delaySeconds: 10, backoff: true };

/**
 * A named job type: its payload, retry policy and schedule, and a factory that builds its handler
 * from explicit dependencies. The catalog (catalog.ts) lists the types, so the API process can enqueue
 * and create queues without building a single handler; only processes that run jobs call `handler`
 * (registry.ts).
 */
export interface JobType<N extends string = string, P extends object = object, D = never> {
  name: N;
  /** Phantom: carries the payload type (`payloadOf<T>()`); never read at run time. */
  payload: P;
  /** A fixed policy, or one read from configuration (MAIL_RETRY_LIMIT ...). */
  retry?: RetryPolicy | ((config: Config) => RetryPolicy);
  /** Seconds a run may take before the queue considers it lost and retries it. */
  expireInSeconds?: number;
  /** Cron expression (UTC) for recurring jobs; their payload is `{}`. */
  schedule?: string;
  /** Jobs fetched per poll; handlers still run one at a time per worker. */
  batchSize?: number;
  /** Workers per process, so one slow job (a webhook receiver that times out) does not hold up the rest. */
  concurrency?: number;
  handler: (deps: D) => JobHandler<P>;
}

export const payloadOf = <P extends object>(): P => undefined as unknown as P;

/**
 * Job name -> the payload enqueue() takes. Each job file adds its own entries by declaration merging
 * (`declare module '.../jobs/job.ts' { interface JobPayloads { 'ingestion.run': { runId: string } } }`),
 * so the queue and the services that enqueue are typed without importing the module list.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging from each job file
export interface JobPayloads {}

export type JobName = keyof JobPayloads & string;

/** A job type whose payload is the one its name declares in JobPayloads. */
export const defineJob = <const N extends JobName, D>(
  type: JobType<N, JobPayloads[N], D>,
): JobType<N, JobPayloads[N], D> => type;

/** What the queue needs of a job type: everything but the handler factory, the policy resolved. */
export interface QueueSpec {
  name: string;
  retry: RetryPolicy;
  expireInSeconds: number;
  schedule?: string;
  batchSize: number;
  concurrency: number;
}

// biome-ignore lint/suspicious/noExplicitAny: any job type, whatever its payload and handler's dependencies
export type AnyJobType = JobType<string, any, any>;

export function queueSpecOf(type: AnyJobType, config: Config): QueueSpec {
  const retry = typeof type.retry === 'function' ? type.retry(config) : (type.retry ?? DEFAULT_RETRY);
  return {
    name: type.name,
    retry,
    expireInSeconds: type.expireInSeconds ?? 15 * 60,
    schedule: type.schedule,
    batchSize: type.batchSize ?? 1,
    concurrency: type.concurrency ?? 1,
  };
}
