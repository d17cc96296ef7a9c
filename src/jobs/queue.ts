// The durable job queue: pg-boss on the same PostgreSQL (or embedded PGlite) as the data, so a job
// can be enqueued in the same transaction as the change that causes it.
import PgBoss from 'pg-boss';
import type { Transaction } from 'sequelize';
import type { Logger } from '../shared/logger.ts';
import type { JobHandler, JobName, JobPayloads, QueueSpec } from './job.ts';

export interface EnqueueOptions {
  /** Enqueue inside this transaction: the job exists only if the transaction commits. */
  transaction?: Transaction;
  startAfter?: Date | number;
  singletonKey?: string;
}

export interface JobQueueOptions {
  url: string;
  logger: Logger;
  pollingIntervalSeconds: number;
  /** Every job type of the catalog (catalog.ts), with its policy resolved. */
  specs: readonly QueueSpec[];
}

export type JobHandlers = { [N in JobName]: JobHandler<JobPayloads[N]> };

type PgClient = { query(text: string, values: unknown[]): Promise<{ rows: unknown[] }> };

export class JobQueue {
  private instance?: PgBoss;
  private readonly specs: ReadonlyMap<string, QueueSpec>;
  private readonly handlers = new Map<string, JobHandler<object>>();
  private started = false;
  private working = false;
  private readonly companions: Array<{ start(): void | Promise<void>; stop(): Promise<void> }> = [];

  constructor(private readonly options: JobQueueOptions) {
    this.specs = new Map(options.specs.map((spec) => [spec.name, spec]));
  }

  /**
   * Built on first use: the pool gets a connection per worker of the catalog's job types plus two
   * (sends, maintenance). A worker left waiting for a connection when the pool ends at shutdown is
   * never served nor rejected by pg-pool, so it would never stop and would keep the process alive.
   */
  private get boss(): PgBoss {
    if (!this.instance) {
      const workers = [...this.specs.values()].reduce((sum, spec) => sum + spec.concurrency, 0);
      this.instance = new PgBoss({
        connectionString: this.options.url,
        max: Math.max(4, workers + 2),
        application_name: 'guildhall-jobs',
      });
      this.instance.on('error', (error) => this.options.logger.error({ err: error }, 'job queue error'));
    }
    return this.instance;
  }

  /**
   * The handlers of every job type, bound to their dependencies (registry.ts). Only processes that
   * run jobs call this; the API process with JOBS_ENABLED=false enqueues without them.
   */
  register(handlers: JobHandlers): void {
    for (const [name, handler] of Object.entries(handlers)) {
      if (!this.specs.has(name)) throw new Error(`Handler for ${name}, which is not in the job catalog`);
      this.handlers.set(name, handler as JobHandler<object>);
    }
  }

  /** Runs with the workers: started by start({ workers: true }), stopped first by stop() (the webhook dispatcher). */
  runAlongside(companion: { start(): void | Promise<void>; stop(): Promise<void> }): void {
    this.companions.push(companion);
  }

  /** Creates the queue schema, queues and schedules; starts workers only when asked (the API process may not). */
  async start({ workers }: { workers: boolean }): Promise<void> {
    const missing = [...this.specs.keys()].filter((name) => !this.handlers.has(name));
    if (workers && missing.length)
      throw new Error(`No handler registered for ${missing.join(', ')}: register the registry's handlers first`);
    const starting = !this.started;
    await this.boss.start();
    this.started = true;
    for (const spec of this.specs.values()) {
      if (starting) {
        const policy = {
          name: spec.name,
          retryLimit: spec.retry.limit,
          retryDelay: spec.retry.delaySeconds,
          retryBackoff: spec.retry.backoff,
          expireInSeconds: spec.expireInSeconds,
        };
        await this.boss.createQueue(spec.name, policy);
        // createQueue leaves an existing queue as it was: a changed policy (MAIL_RETRY_*) must reach it too
        await this.boss.updateQueue(spec.name, policy);
        if (spec.schedule) await this.boss.schedule(spec.name, spec.schedule, {}, { tz: 'UTC' });
      }
      if (workers && !this.working)
        for (let i = 0; i < spec.concurrency; i++) await this.work(spec, this.handlers.get(spec.name)!);
    }
    if (workers && !this.working) for (const companion of this.companions) await companion.start();
    if (workers) this.working = true;
  }

  private async work(spec: QueueSpec, handler: JobHandler<object>): Promise<void> {
    const { logger, pollingIntervalSeconds } = this.options;
    await this.boss.work<object>(
      spec.name,
      { pollingIntervalSeconds, batchSize: spec.batchSize, includeMetadata: true },
      async (jobs) => {
        for (const job of jobs as Array<PgBoss.JobWithMetadata<object>>) {
          const jobLogger = logger.child({ job: spec.name, jobId: job.id, attempt: job.retryCount });
          try {
            await handler(job.data, { jobId: job.id, attempt: job.retryCount, logger: jobLogger });
          } catch (error) {
            jobLogger.warn({ err: error }, 'job failed; it will be retried if attempts remain');
            throw error;
          }
        }
      },
    );
  }

  /**
   * Queues one job; the payload's type is the catalog's for that name, with no other signature: a
   * payload typed by the caller could drift from what the job's handler reads.
   */
  async enqueue<N extends JobName>(
    name: N,
    data: JobPayloads[N],
    options: EnqueueOptions = {},
  ): Promise<string | null> {
    // the type allows only catalog names; a cast or a stale caller could still bring another
    if (!this.specs.has(name)) throw new Error(`Unknown job type ${name}`);
    const { transaction, ...rest } = options;
    const sendOptions: PgBoss.SendOptions = { ...rest };
    if (transaction) {
      // The transaction's own connection, so the insert commits or rolls back with the change.
      const client = (transaction as unknown as { connection: PgClient }).connection;
      sendOptions.db = {
        executeSql: (text, values) => client.query(text, values) as ReturnType<PgBoss.Db['executeSql']>,
      };
    }
    return this.boss.send(name, data, sendOptions);
  }

  /** For admins: the state of one job (status, attempts, last error). */
  async getJob(name: string, id: string): Promise<PgBoss.JobWithMetadata | null> {
    return this.boss.getJobById(name, id, { includeArchive: true });
  }

  get pgBoss(): PgBoss {
    return this.boss;
  }

  /** Waits (up to 10 s) for running jobs to finish: SIGTERM never cuts a job in half if it can help it. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.working = false;
    for (const companion of this.companions) await companion.stop();
    await this.boss.stop({ graceful: true, wait: true, timeout: 10_000 });
  }
}
