// Pipeline runs and steps: a failed step is cleaned up and the run resumes there on retry; steps
// already done never run again; a step interrupted by a crash is cleaned up before it runs again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jobHandlers } from '../../src/jobs/registry.ts';
import { PipelineRun, PipelineStepRecord } from '../../src/jobs/pipeline/pipeline-run.model.ts';
import type { PipelineStep } from '../../src/jobs/pipeline/pipelines.ts';
import { buildOrganization } from '../factories/index.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

type Input = { documentId: string };

/** Three steps writing into `store`: extract (-> text), chunk (-> chunk count, flaky), embed. */
function ingestion(store: Map<string, string[]>, calls: string[], options: { chunkFailures: number }) {
  let chunkFailures = options.chunkFailures;
  const steps: PipelineStep<Input>[] = [
    {
      name: 'extract',
      run: async ({ input }) => {
        calls.push('extract');
        return { text: `text of ${input.documentId}` };
      },
    },
    {
      name: 'chunk',
      run: async ({ input, outputs }) => {
        calls.push('chunk');
        const { text } = outputs.extract as { text: string };
        store.set(input.documentId, [text.slice(0, 4)]); // half-written: one chunk of two
        if (chunkFailures-- > 0) throw new Error('out of memory');
        store.set(input.documentId, [text.slice(0, 4), text.slice(4)]);
        return { chunks: 2 };
      },
      cleanUp: async ({ input }) => {
        calls.push('chunk.cleanUp');
        store.delete(input.documentId);
      },
    },
    {
      name: 'embed',
      run: async ({ outputs }) => {
        calls.push('embed');
        return { embedded: (outputs.chunk as { chunks: number }).chunks };
      },
    },
  ];
  return steps;
}

describe('pipeline runs and steps', () => {
  let t: TestApp;
  let organizationId: string;

  before(async () => {
    t = await startTestApp();
    organizationId = (await buildOrganization()).id;
  });
  after(() => t.close());

  const newRun = () =>
    t.container.pipelines.create({
      kind: 'library.ingest',
      organizationId,
      subject: { type: 'document', id: 'doc-1' },
      input: { documentId: 'doc-1' },
    });
  const stepsOf = async (runId: string) =>
    Object.fromEntries(
      (await PipelineStepRecord.findAll({ where: { runId } })).map((s) => [
        s.name,
        { status: s.status, attempts: s.attempts, lastError: s.lastError },
      ]),
    );

  it('when a step fails, then its clean-up runs, the run is failed at that step, and the retry resumes there without redoing earlier steps', async () => {
    const store = new Map<string, string[]>();
    const calls: string[] = [];
    const steps = ingestion(store, calls, { chunkFailures: 1 });
    const run = await newRun();

    await assert.rejects(t.container.pipelines.runPipeline(run.id, steps), /out of memory/);
    assert.deepEqual(calls, ['extract', 'chunk', 'chunk.cleanUp']);
    assert.equal(store.has('doc-1'), false, 'the half-written chunks were removed');
    const failed = (await PipelineRun.findByPk(run.id))!;
    assert.equal(failed.status, 'failed');
    assert.equal(failed.currentStep, 'chunk');
    assert.equal(failed.lastError, 'chunk: out of memory');
    assert.deepEqual(await stepsOf(run.id), {
      extract: { status: 'succeeded', attempts: 1, lastError: null },
      chunk: { status: 'failed', attempts: 1, lastError: 'out of memory' },
    });

    calls.length = 0;
    const done = (await t.container.pipelines.runPipeline(run.id, steps))!;
    assert.deepEqual(calls, ['chunk', 'embed'], 'extract was not run again');
    assert.equal(done.status, 'succeeded');
    assert.equal(done.currentStep, null);
    assert.equal(done.attempts, 2);
    assert.ok(done.finishedAt);
    assert.deepEqual(store.get('doc-1'), ['text', ' of doc-1']);
    const finalSteps = await PipelineStepRecord.findAll({ where: { runId: run.id }, order: [['position', 'ASC']] });
    assert.deepEqual(
      finalSteps.map((s) => [s.name, s.status, s.attempts]),
      [
        ['extract', 'succeeded', 1],
        ['chunk', 'succeeded', 2],
        ['embed', 'succeeded', 1],
      ],
    );
    assert.deepEqual(finalSteps[2]!.output, { embedded: 2 }, "a later step read an earlier step's stored output");

    calls.length = 0;
    await t.container.pipelines.runPipeline(run.id, steps);
    assert.deepEqual(calls, [], 'a finished run runs nothing');
  });

  it('when a step was left running by a crash, then it is cleaned up before it runs again', async () => {
    const store = new Map<string, string[]>([['doc-1', ['half']]]);
    const calls: string[] = [];
    const run = await newRun();
    await PipelineRun.update({ status: 'running', attempts: 1 }, { where: { id: run.id } });
    await PipelineStepRecord.bulkCreate([
      {
        runId: run.id,
        name: 'extract',
        position: 0,
        status: 'succeeded',
        attempts: 1,
        output: { text: 'text of doc-1' },
        lastError: null,
        startedAt: new Date(),
        finishedAt: new Date(),
      },
      {
        runId: run.id,
        name: 'chunk',
        position: 1,
        status: 'running',
        attempts: 1,
        output: null,
        lastError: null,
        startedAt: new Date(),
        finishedAt: null,
      },
    ]);
    const done = (await t.container.pipelines.runPipeline(run.id, ingestion(store, calls, { chunkFailures: 0 })))!;
    assert.deepEqual(calls, ['chunk.cleanUp', 'chunk', 'embed']);
    assert.equal(done.status, 'succeeded');
    assert.deepEqual(store.get('doc-1'), ['text', ' of doc-1']);
  });

  it('when the clean-up itself fails, then the step stays running so the next attempt cleans up first', async () => {
    const calls: string[] = [];
    let cleanUpWorks = false;
    const run = await newRun();
    const steps: PipelineStep<Input>[] = [
      {
        name: 'render',
        run: async ({ attempt }) => {
          calls.push(`render#${attempt}`);
          if (attempt === 1) throw new Error('ffmpeg crashed');
          return { file: 'out.mp3' };
        },
        cleanUp: async () => {
          calls.push(cleanUpWorks ? 'cleanUp' : 'cleanUp!');
          if (!cleanUpWorks) throw new Error('disk read-only');
        },
      },
    ];
    await assert.rejects(t.container.pipelines.runPipeline(run.id, steps), /ffmpeg crashed/);
    assert.deepEqual(await stepsOf(run.id), {
      render: { status: 'running', attempts: 1, lastError: 'ffmpeg crashed' },
    });
    cleanUpWorks = true;
    await t.container.pipelines.runPipeline(run.id, steps);
    assert.deepEqual(calls, ['render#1', 'cleanUp!', 'cleanUp', 'render#2']);
    assert.equal((await PipelineRun.findByPk(run.id))!.status, 'succeeded');
  });

  it('when the purge runs, then finished runs older than the retention go with their steps and recent ones stay', async () => {
    const old = await newRun();
    await t.container.pipelines.runPipeline(old.id, [{ name: 'only', run: async () => 1 }]);
    const running = await newRun();
    await t.db.sequelize.query("UPDATE pipeline_runs SET status = 'running' WHERE id = $1", { bind: [running.id] });
    await t.db.sequelize.query(
      "UPDATE pipeline_runs SET updated_at = now() - interval '40 days' WHERE id IN ($1, $2)",
      { bind: [old.id, running.id] },
    );
    await jobHandlers(t.container)['pipeline.purge']({}, { jobId: 'test', attempt: 0, logger: t.container.logger });
    assert.equal(await PipelineRun.count({ where: { id: old.id } }), 0);
    assert.equal(await PipelineStepRecord.count({ where: { runId: old.id } }), 0);
    assert.equal(await PipelineRun.count({ where: { id: running.id } }), 1, 'a run still going is kept');
    assert.ok((await PipelineRun.count()) >= 3);
  });
});
