import type { Logger } from '../shared/logger.ts';

export interface JobContext {
  jobId: string;
  /** 0 on the first run; retries count up. */
  attempt: number;
  logger: Logger;
}

/**
 * A named job type: a plain handler plus its retry policy. Handlers must be idempotent; the queue
 * delivers at least once.
 */
export interface JobDefinition<T extends object = object> {
  name: string;
  handler: (data: T, context: JobContext) => Promise<void>;
  retryLimit?: number;
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  expireInSeconds?: number;
  /** Cron expression for recurring jobs (UTC). */
  schedule?: string;
  /** Jobs fetched per poll; handlers still run one at a time per worker. */
  batchSize?: number;
  /** Workers per process, so one slow job (a webhook receiver that times out) does not hold up the rest. */
  concurrency?: number;
}

export const defineJob = <T extends object>(definition: JobDefinition<T>): JobDefinition<T> => definition;
