// The durable job queue: pg-boss on the same PostgreSQL (or embedded PGlite) as the data, so a job
// can be enqueued in the same transaction as the change that causes it.
import PgBoss from 'pg-boss';
import type { Transaction } from 'sequelize';
import type { Logger } from '../shared/logger.ts';
import type { JobDefinition } from './job.ts';

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
}

type PgClient = { query(text: string, values: unknown[]): Promise<{ rows: unknown[] }> };

export class JobQueue {
  private instance?: PgBoss;
  private readonly definitions = new Map<string, JobDefinition<object>>();
  private started = false;
  private readonly companions: Array<{ start(): void | Promise<void>; stop(): Promise<void> }> = [];

  constructor(private readonly options: JobQueueOptions) {}

  /**
   * Built on first use, once every job type is registered: the pool gets a connection per worker plus
   * two (sends, maintenance). A worker left waiting for a connection when the pool ends at shutdown is
   * never served nor rejected by pg-pool, so it would never stop and would keep the process alive.
   */
  private get boss(): PgBoss {
    if (!this.instance) {
      const workers = [...this.definitions.values()].reduce((sum, definition) => sum + (definition.concurrency ?? 1), 0);
      this.instance = new PgBoss({ connectionString: this.options.url, max: Math.max(4, workers + 2), application_name: 'guildhall-jobs' });
      this.instance.on('error', (error) => this.options.logger.error({ err: error }, 'job queue error'));
    }
    return this.instance;
  }

  register(definitions: JobDefinition<object>[]): void {
    for (const definition of definitions) this.definitions.set(definition.name, definition);
  }

  /** Runs with the workers: started by start({ workers: true }), stopped first by stop() (the webhook dispatcher). */
  runAlongside(companion: { start(): void | Promise<void>; stop(): Promise<void> }): void {
    this.companions.push(companion);
  }

  /** Creates the queue schema and queues; starts workers only when asked (the API process may not). */
  async start({ workers }: { workers: boolean }): Promise<void> {
    await this.boss.start();
    this.started = true;
    for (const definition of this.definitions.values()) {
      await this.boss.createQueue(definition.name, {
        name: definition.name,
        retryLimit: definition.retryLimit ?? 5,
        retryDelay: definition.retryDelaySeconds ?? 10,
        retryBackoff: definition.retryBackoff ?? true,
        expireInSeconds: definition.expireInSeconds ?? 15 * 60,
      });
      if (definition.schedule) await this.boss.schedule(definition.name, definition.schedule, {}, { tz: 'UTC' });
      if (workers) for (let i = 0; i < (definition.concurrency ?? 1); i++) await this.work(definition);
    }
    if (workers) for (const companion of this.companions) await companion.start();
  }

  private async work(definition: JobDefinition<object>): Promise<void> {
    const { logger, pollingIntervalSeconds } = this.options;
    await this.boss.work<object>(
      definition.name,
      { pollingIntervalSeconds, batchSize: definition.batchSize ?? 1, includeMetadata: true },
      async (jobs) => {
        for (const job of jobs as Array<PgBoss.JobWithMetadata<object>>) {
          const jobLogger = logger.child({ job: definition.name, jobId: job.id, attempt: job.retryCount });
          try {
            await definition.handler(job.data, { jobId: job.id, attempt: job.retryCount, logger: jobLogger });
          } catch (error) {
            jobLogger.warn({ err: error }, 'job failed; it will be retried if attempts remain');
            throw error;
          }
        }
      },
    );
  }

  async enqueue<T extends object>(name: string, data: T, options: EnqueueOptions = {}): Promise<string | null> {
    if (!this.definitions.has(name)) throw new Error(`Unknown job type ${name}`);
    const { transaction, ...rest } = options;
    const sendOptions: PgBoss.SendOptions = { ...rest };
    if (transaction) {
      // The transaction's own connection, so the insert commits or rolls back with the change.
      const client = (transaction as unknown as { connection: PgClient }).connection;
      sendOptions.db = { executeSql: (text, values) => client.query(text, values) as Promise<{ rows: unknown[] }> as Promise<{ rows: any[] }> };
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

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    for (const companion of this.companions) await companion.stop();
    await this.boss.stop({ graceful: true, wait: true, timeout: 10_000 });
  }
}
