// Step state for long pipelines (a library ingestion, a podcast): each run is a row, each step a row
// keyed by (run, name). A job calls runPipeline(runId, steps) and simply fails when a step fails; its
// retry resumes at that step, and steps already done are never run again.
import { Op, type Transaction } from 'sequelize';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../../shared/logger.ts';
import { PipelineRun, PipelineStepRecord } from './pipeline-run.model.ts';

export interface StepContext<I extends object = Record<string, unknown>> {
  runId: string;
  organizationId: string | null;
  input: I;
  /** What the steps before this one returned, by step name. */
  outputs: Readonly<Record<string, unknown>>;
  /** This step's attempt, 1 on its first run. */
  attempt: number;
  logger: Logger;
}

/**
 * One idempotent step. `run` returns a JSON value kept for later steps (ids, storage keys), and may
 * be run again after a failure. `cleanUp` removes what a failed or interrupted attempt half-wrote (a
 * partial file, chunks of a document); it is called before the step runs again, so it must be safe
 * when there is nothing to remove.
 */
export interface PipelineStep<I extends object = Record<string, unknown>> {
  name: string;
  run(context: StepContext<I>): Promise<unknown>;
  cleanUp?(context: StepContext<I>): Promise<void>;
}

export interface NewPipelineRun {
  kind: string;
  organizationId?: string | null;
  subject?: { type: string; id: string };
  input?: Record<string, unknown>;
}

const messageOf = (error: unknown) => String((error as Error)?.message ?? error).slice(0, 2000);

export class Pipelines {
  constructor(private readonly deps: { clock: Clock; logger: Logger }) {}

  /** A run to start; create it in the transaction that also enqueues the job calling runPipeline. */
  async create(run: NewPipelineRun, transaction?: Transaction): Promise<PipelineRun> {
    return PipelineRun.create(
      {
        kind: run.kind,
        organizationId: run.organizationId ?? null,
        subjectType: run.subject?.type ?? null,
        subjectId: run.subject?.id ?? null,
        input: run.input ?? {},
      },
      { transaction },
    );
  }

  /**
   * Runs the steps not yet done, in order. A step that throws has its clean-up called, the run is
   * marked failed at that step, and the error is rethrown for the job queue to retry. A step found
   * `running` was interrupted (the process died): it is cleaned up before it runs again.
   */
  async runPipeline<I extends object>(
    runId: string,
    steps: ReadonlyArray<PipelineStep<I>>,
  ): Promise<PipelineRun | null> {
    if (new Set(steps.map((step) => step.name)).size !== steps.length)
      throw new Error('Pipeline step names must be unique');
    const fence = await this.claim(runId);
    if (!fence) return PipelineRun.findByPk(runId);
    const logger = this.deps.logger.child({ pipeline: fence.run.kind, runId });
    const done = new Map(
      (await PipelineStepRecord.findAll({ where: { runId } })).map((record) => [record.name, record]),
    );
    const outputs: Record<string, unknown> = {};
    for (const [position, step] of steps.entries()) {
      const record = done.get(step.name);
      if (record?.status === 'succeeded') {
        outputs[step.name] = record.output;
        continue;
      }
      if (!(await this.advance(fence.run, fence.attempts, step.name))) {
        logger.warn('a newer run of this pipeline took over; this one stops');
        return PipelineRun.findByPk(runId);
      }
      const context: StepContext<I> = {
        runId,
        organizationId: fence.run.organizationId,
        input: fence.run.input as I,
        outputs: { ...outputs },
        attempt: (record?.attempts ?? 0) + 1,
        logger: logger.child({ step: step.name }),
      };
      if (record?.status === 'running') await this.cleanUp(fence.run, step, context, 'interrupted');
      outputs[step.name] = await this.runStep(fence.run, step, position, context);
    }
    const now = this.deps.clock.now();
    await PipelineRun.update(
      { status: 'succeeded', currentStep: null, lastError: null, finishedAt: now, updatedAt: now },
      { where: { id: runId, attempts: fence.attempts } },
    );
    return PipelineRun.findByPk(runId);
  }

  /** Retention: runs finished (either way) before the cutoff, with their steps. */
  async purgeFinishedBefore(cutoff: Date): Promise<number> {
    return PipelineRun.destroy({
      where: { status: { [Op.in]: ['succeeded', 'failed'] }, updatedAt: { [Op.lt]: cutoff } },
    });
  }

  /** Marks the run running and takes the next attempt number, the fence of this run of the runner. */
  private async claim(runId: string): Promise<{ run: PipelineRun; attempts: number } | null> {
    const [count, rows] = await PipelineRun.update(
      {
        status: 'running',
        attempts: PipelineRun.sequelize!.literal('attempts + 1') as unknown as number,
        lastError: null,
        updatedAt: this.deps.clock.now(),
      },
      { where: { id: runId, status: { [Op.ne]: 'succeeded' } }, returning: true },
    );
    return count === 1 ? { run: rows[0]!, attempts: rows[0]!.attempts } : null;
  }

  private async advance(run: PipelineRun, attempts: number, step: string): Promise<boolean> {
    const [count] = await PipelineRun.update(
      { currentStep: step, updatedAt: this.deps.clock.now() },
      { where: { id: run.id, attempts } },
    );
    return count === 1;
  }

  private async runStep<I extends object>(
    run: PipelineRun,
    step: PipelineStep<I>,
    position: number,
    context: StepContext<I>,
  ): Promise<unknown> {
    const started = this.deps.clock.now();
    await PipelineStepRecord.upsert({
      runId: run.id,
      name: step.name,
      position,
      status: 'running',
      attempts: context.attempt,
      output: null,
      lastError: null,
      startedAt: started,
      finishedAt: null,
    });
    let output: unknown;
    try {
      output = (await step.run(context)) ?? null;
    } catch (error) {
      const cleaned = await this.cleanUp(run, step, context, 'failed', error).then(
        () => true,
        () => false,
      );
      // still `running` when the clean-up failed too: the next attempt cleans up again first
      await PipelineStepRecord.update(
        { status: cleaned ? 'failed' : 'running', lastError: messageOf(error), finishedAt: this.deps.clock.now() },
        { where: { runId: run.id, name: step.name } },
      );
      await PipelineRun.update(
        { status: 'failed', lastError: `${step.name}: ${messageOf(error)}`, updatedAt: this.deps.clock.now() },
        { where: { id: run.id } },
      );
      context.logger.warn({ err: error }, 'pipeline step failed; a retry resumes here');
      throw error;
    }
    await PipelineStepRecord.update(
      { status: 'succeeded', output: output as object, finishedAt: this.deps.clock.now() },
      { where: { runId: run.id, name: step.name } },
    );
    return output;
  }

  private async cleanUp<I extends object>(
    run: PipelineRun,
    step: PipelineStep<I>,
    context: StepContext<I>,
    why: 'failed' | 'interrupted',
    cause?: unknown,
  ): Promise<void> {
    if (!step.cleanUp) return;
    try {
      await step.cleanUp(context);
    } catch (error) {
      context.logger.error({ err: error, cause, why }, 'pipeline step clean-up failed');
      if (why === 'interrupted') {
        await PipelineRun.update(
          {
            status: 'failed',
            lastError: `${step.name}: clean-up failed: ${messageOf(error)}`,
            updatedAt: this.deps.clock.now(),
          },
          { where: { id: run.id } },
        );
      }
      throw error;
    }
  }
}
