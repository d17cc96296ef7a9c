// The ingestion pipeline on a real database (PGlite with pgvector) and the real USE-lite embedder:
// resource events start it, steps extract -> embed -> activate, passages keep their pages, a new version
// replaces the old passages, unpublishing removes them, a failure mid-embedding resumes where it stopped,
// and the status endpoint shows all of it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Embedder } from '../../src/integrations/embeddings/embedder.ts';
import { jobHandlers } from '../../src/jobs/registry.ts';
import { IngestionRunner } from '../../src/modules/ingestion/ingestion.pipeline.ts';
import { IngestionRepository } from '../../src/modules/ingestion/ingestion.repository.ts';
import { reembedPassages } from '../../src/modules/ingestion/reembed.job.ts';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { makeDocx, makePdf, makePptx, makeScannedPdf, makeXlsx, prose } from '../support/documents.ts';
import { addVersion, publishEvent, setStatus, storageEnv, storeResource } from './library-fixtures.ts';

interface PassageRow {
  version_id: string;
  ordinal: number;
  page_number: number;
  location_kind: string;
  heading_path: string | null;
  content: string;
  embedding_model: string | null;
  has_vector: boolean;
}

describe('library ingestion', () => {
  let t: TestApp;
  let organizationId: string;
  let vectors: boolean;
  let admin: string;
  let staff: string;
  let member: string;
  let outsider: string;
  let jobs: ReturnType<typeof jobHandlers>;
  const context = () => ({ jobId: 'test', attempt: 0, logger: t.container.logger });

  before(async () => {
    t = await startTestApp({ env: storageEnv() });
    organizationId = (await buildOrganization()).id;
    admin = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
    staff = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_USER', organizationId }));
    member = await tokenFor(t, await buildUser({ role: 'ROLE_MEMBER', organizationId }));
    outsider = await tokenFor(
      t,
      await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: (await buildOrganization()).id }),
    );
    jobs = jobHandlers(t.container);
    await t.container.embedder.embed(['warm up']); // the model loads once for the file
    // the PostgreSQL server here has no pgvector: passages are then stored without vectors (keyword-only)
    vectors = (await t.container.sql.one<{ present: boolean }>(
      "SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'resource_passages' AND column_name = 'embedding') AS present",
    ))!.present;
  });
  after(() => t.close());

  /** What the worker does for one event: the subscriber's job, then the ingestion job it enqueued. */
  async function deliver(type: Parameters<typeof publishEvent>[1], resourceId: string): Promise<void> {
    const eventId = await publishEvent(t, type, resourceId);
    await jobs['domain-event.deliver']({ eventId, subscriber: 'ingestion.index' }, context());
    await runQueued(resourceId);
  }

  async function runQueued(resourceId: string): Promise<void> {
    const runs = await t.container.sql.rows<{ run_id: string }>(
      `SELECT run_id FROM resource_ingestions WHERE resource_id = $1 AND status IN ('queued', 'running') AND run_id IS NOT NULL`,
      [resourceId],
    );
    for (const { run_id } of runs) await jobs['ingestion.run']({ runId: run_id }, context());
  }

  const passagesOf = (resourceId: string) =>
    t.container.sql.rows<PassageRow>(
      `SELECT version_id, ordinal, page_number, location_kind, heading_path, content, embedding_model, ${vectors ? 'embedding IS NOT NULL' : 'false'} AS has_vector
         FROM resource_passages WHERE resource_id = $1 ORDER BY ordinal`,
      [resourceId],
    );

  const status = (resourceId: string, token = admin) =>
    t.http.get(`/api/resources/${resourceId}/ingestion`).set(bearer(token));

  it("when a PDF is published, then its passages are stored with their pages, vectors of the current model and the resource's organization, and the status says done", async () => {
    const pdf = await makePdf([
      `Membership dues. ${prose('dues', 60)}`,
      `Annual conference. ${prose('conference', 400)}`,
      'Contact the office for travel grants.',
    ]);
    const { resourceId, versionId } = await storeResource(t, organizationId, pdf);
    const before = await status(resourceId);
    assert.equal(before.status, 200);
    assert.equal(before.body.status, 'not_started');

    await deliver('resource.published', resourceId);

    const passages = await passagesOf(resourceId);
    assert.ok(passages.length >= 4, `${passages.length} passages`);
    assert.deepEqual([...new Set(passages.map((p) => p.page_number))], [1, 2, 3]);
    assert.ok(passages.every((p) => p.version_id === versionId && p.location_kind === 'page'));
    // vectors of the current model where pgvector is installed; none (keyword-only) where it is not
    assert.ok(passages.every((p) => (vectors ? p.has_vector && p.embedding_model === 'use-lite-512' : !p.has_vector)));
    assert.match(passages.find((p) => p.page_number === 3)!.content, /travel grants/);
    const [org] = await t.container.sql.rows<{ organization_id: string }>(
      'SELECT DISTINCT organization_id FROM resource_passages WHERE resource_id = $1',
      [resourceId],
    );
    assert.equal(org!.organization_id, organizationId);
    assert.equal(
      Number((await t.container.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM resource_passage_drafts'))!.n),
      0,
      'drafts are gone once activated',
    );

    const res = await status(resourceId);
    assert.equal(res.status, 200);
    assert.ok(res.headers['ratelimit-policy']);
    assert.deepEqual(
      {
        status: res.body.status,
        pagesDone: res.body.pagesDone,
        pagesTotal: res.body.pagesTotal,
        passages: res.body.passages,
        pageNumbers: res.body.pageNumbers,
        model: res.body.embeddingModel,
        version: res.body.version,
        lastError: res.body.lastError,
      },
      {
        status: 'done',
        pagesDone: 3,
        pagesTotal: 3,
        passages: passages.length,
        pageNumbers: 'exact',
        model: vectors ? 'use-lite-512' : null,
        version: 1,
        lastError: null,
      },
    );
    assert.ok(res.body.finishedAt && res.body.startedAt && res.body.attempts === 1);
    const search = await t.container.sql.rows<{ page_number: number }>(
      `SELECT page_number FROM resource_passages WHERE resource_id = $1 AND search @@ websearch_to_tsquery('english', 'travel grants')`,
      [resourceId],
    );
    assert.deepEqual(
      search.map((r) => r.page_number),
      [3],
      'the keyword index finds the page',
    );
  });

  it('when Word, Excel and PowerPoint files are published, then passages carry sections with heading paths, sheet positions and slide numbers', async () => {
    const docx = await storeResource(
      t,
      organizationId,
      await makeDocx([
        { heading: 'Bylaws', paragraphs: ['The association is governed by its members.'] },
        { heading: 'Voting', level: 2, paragraphs: ['Each member has one vote.'], pageBreakBefore: true },
      ]),
      { format: 'docx' },
    );
    const xlsx = await storeResource(
      t,
      organizationId,
      await makeXlsx([
        {
          name: 'Fees',
          rows: [
            ['Tier', 'Fee'],
            ['Student', 30],
          ],
        },
        { name: 'Dates', rows: [['Renewals open 1 March']] },
      ]),
      { format: 'xlsx' },
    );
    const pptx = await storeResource(
      t,
      organizationId,
      await makePptx([
        { title: 'Welcome' },
        { title: 'Strategy', bullets: ['Grow regional chapters'], notes: 'Mention the pilot.' },
      ]),
      { format: 'pptx' },
    );
    for (const { resourceId } of [docx, xlsx, pptx]) await deliver('resource.published', resourceId);

    assert.deepEqual(
      (await passagesOf(docx.resourceId)).map((p) => [p.page_number, p.location_kind, p.heading_path]),
      [
        [1, 'section', 'Bylaws'],
        [2, 'section', 'Bylaws > Voting'],
      ],
    );
    assert.deepEqual(
      (await passagesOf(xlsx.resourceId)).map((p) => [p.page_number, p.location_kind, p.heading_path]),
      [
        [1, 'sheet', 'Fees'],
        [2, 'sheet', 'Dates'],
      ],
    );
    const slides = await passagesOf(pptx.resourceId);
    assert.deepEqual(
      slides.map((p) => [p.page_number, p.location_kind]),
      [
        [1, 'slide'],
        [2, 'slide'],
      ],
    );
    assert.match(slides[1]!.content, /Grow regional chapters[\s\S]*Speaker notes: Mention the pilot\./);
    assert.equal((await status(docx.resourceId)).body.pageNumbers, 'recorded');
  });

  it('when a scanned PDF (no text layer) without words is published, then OCR reads each page, and the status is no_text with a message saying so, not a silent success', async () => {
    const { resourceId } = await storeResource(t, organizationId, await makeScannedPdf(3));
    await deliver('resource.published', resourceId);
    const res = await status(resourceId);
    assert.equal(res.body.status, 'no_text');
    assert.equal(res.body.pagesTotal, 3);
    assert.equal(res.body.passages, 0);
    assert.match(res.body.lastError, /No text layer.*scanned.*OCR read no text on pages 1, 2, 3/);
    assert.equal(res.body.ocrPages, 3, 'each page was read by OCR (a drawn shape, no words)');
    assert.equal(res.body.ocrConfidence, null);
    assert.deepEqual(await passagesOf(resourceId), []);
  });

  it('when the file is corrupt, then the ingestion fails once with a message saying so, without retries, and a duplicate delivery changes nothing', async () => {
    const { resourceId } = await storeResource(t, organizationId, Buffer.from('%PDF-1.4 this is not really a PDF'));
    await deliver('resource.published', resourceId);
    const res = await status(resourceId);
    assert.equal(res.body.status, 'failed');
    assert.match(res.body.lastError, /The PDF file could not be read/);
    const { run_id: runId } = (await t.container.sql.one<{ run_id: string }>(
      'SELECT run_id FROM resource_ingestions WHERE resource_id = $1',
      [resourceId],
    ))!;
    await jobs['ingestion.run']({ runId }, context());
    assert.equal((await status(resourceId)).body.status, 'failed');
    assert.equal((await status(resourceId)).body.attempts, 1);
  });

  it('when a video is published, then its ingestion is unsupported and says why', async () => {
    const { resourceId } = await storeResource(t, organizationId, Buffer.from('not really a video'), { format: 'mp4' });
    await deliver('resource.published', resourceId);
    const res = await status(resourceId);
    assert.equal(res.body.status, 'unsupported');
    assert.match(res.body.lastError, /mp4 files have no text/);
  });

  it("when a new version is added, then its passages replace the old version's, and a version that is no longer current never activates", async () => {
    const { resourceId, versionId: first } = await storeResource(
      t,
      organizationId,
      await makePdf(['Old guidance on parking permits.']),
    );
    await deliver('resource.published', resourceId);
    assert.ok((await passagesOf(resourceId)).every((p) => p.version_id === first));

    const second = await addVersion(
      t,
      resourceId,
      await makePdf(['New guidance on bicycle storage.', 'Second page about lockers.']),
    );
    await deliver('resource.version_added', resourceId);
    const passages = await passagesOf(resourceId);
    assert.deepEqual(
      passages.map((p) => [p.version_id, p.page_number]),
      [
        [second, 1],
        [second, 2],
      ],
    );
    assert.ok(!passages.some((p) => /parking/.test(p.content)));
    const res = await status(resourceId);
    assert.equal(res.body.version, 2);
    assert.equal(res.body.status, 'done');

    // a third version arrives while the second's run is still queued: that run ends superseded
    const third = await addVersion(t, resourceId, await makePdf(['Third edition.']));
    const eventId = await publishEvent(t, 'resource.version_added', resourceId);
    const staleRun = await t.container.sql.one<{ run_id: string }>(
      'SELECT run_id FROM resource_ingestions WHERE version_id = $1',
      [second],
    );
    await t.container.sql.query("UPDATE resource_ingestions SET status = 'queued' WHERE version_id = $1", [second]);
    await jobs['domain-event.deliver']({ eventId, subscriber: 'ingestion.index' }, context());
    await runQueued(resourceId);
    assert.deepEqual(
      (await passagesOf(resourceId)).map((p) => p.version_id),
      [third],
    );
    assert.ok(staleRun?.run_id);
  });

  it('when a resource is unpublished or deleted, then its passages are removed and its ingestion is withdrawn', async () => {
    const { resourceId, versionId } = await storeResource(
      t,
      organizationId,
      await makePdf(['Dues are payable in January.']),
    );
    await deliver('resource.published', resourceId);
    assert.equal((await passagesOf(resourceId)).length, 1);

    await setStatus(t, resourceId, 'draft');
    await deliver('resource.unpublished', resourceId);
    assert.deepEqual(await passagesOf(resourceId), []);
    assert.equal((await status(resourceId)).body.status, 'withdrawn');

    // published again: ingested again
    await setStatus(t, resourceId, 'published');
    await deliver('resource.published', resourceId);
    assert.equal((await passagesOf(resourceId)).length, 1);
    assert.equal((await status(resourceId)).body.status, 'done');

    await t.container.sql.query('DELETE FROM resources WHERE id = $1', [resourceId]);
    await deliver('resource.deleted', resourceId);
    assert.deepEqual(await passagesOf(resourceId), []);
    assert.equal(
      (await t.container.sql.rows('SELECT 1 FROM resource_ingestions WHERE version_id = $1', [versionId])).length,
      0,
    );
  });

  it('when an event arrives for a draft, then nothing is ingested', async () => {
    const { resourceId } = await storeResource(t, organizationId, await makePdf(['Draft text.']), { status: 'draft' });
    await deliver('resource.version_added', resourceId);
    assert.equal((await status(resourceId)).body.status, 'not_started');
  });

  it('when embedding fails mid-way, then the run is failed with the error, and the retry resumes with the passages not yet embedded', async () => {
    const pdf = await makePdf(
      Array.from(
        { length: 6 },
        (_, i) =>
          `Page ${i + 1} on ${['dues', 'ethics', 'audit', 'travel', 'awards', 'mentoring'][i]}. ${prose('topic', 40)}`,
      ),
    );
    const { resourceId } = await storeResource(t, organizationId, pdf);
    const eventId = await publishEvent(t, 'resource.published', resourceId);
    await jobs['domain-event.deliver']({ eventId, subscriber: 'ingestion.index' }, context());
    const { run_id: runId } = (await t.container.sql.one<{ run_id: string }>(
      'SELECT run_id FROM resource_ingestions WHERE resource_id = $1',
      [resourceId],
    ))!;

    const real = t.container.embedder;
    const embedded: string[] = [];
    let failAfter = 2;
    const flaky: Embedder = {
      model: real.model,
      dimensions: real.dimensions,
      async embed(texts) {
        if (failAfter-- <= 0) throw new Error('embedding service unavailable');
        embedded.push(...texts);
        return real.embed(texts);
      },
    };
    const runner = new IngestionRunner({
      sequelize: t.db.sequelize,
      repository: new IngestionRepository(t.container.sql),
      pipelines: t.container.pipelines,
      storage: t.container.storage,
      embedder: flaky,
      clock: t.clock,
      logger: t.container.logger,
      batchSize: 2,
    });

    if (!vectors) {
      // without pgvector there is nothing to embed: the run finishes keyword-only, the embedder untouched
      await runner.run(runId);
      assert.deepEqual(embedded, []);
      assert.equal((await passagesOf(resourceId)).length, 6);
      assert.equal((await status(resourceId)).body.status, 'done');
      return;
    }
    await assert.rejects(runner.run(runId), /embedding service unavailable/);
    const failed = (await status(resourceId)).body;
    assert.equal(failed.status, 'failed');
    assert.match(failed.lastError, /embedding service unavailable/);
    assert.equal(failed.passages, 6);
    assert.ok(failed.pagesDone === 4, `pagesDone ${failed.pagesDone}: the first two batches are kept`);
    assert.deepEqual(await passagesOf(resourceId), [], 'nothing is activated before every passage is embedded');

    // the queue's retry (same job, next attempt): only the two passages left are embedded
    embedded.length = 0;
    failAfter = Infinity;
    await runner.run(runId);
    assert.equal(embedded.length, 2, 'pages 5 and 6 only');
    assert.ok(embedded.every((text) => /Page [56]/.test(text)));
    const passages = await passagesOf(resourceId);
    assert.equal(passages.length, 6);
    assert.ok(passages.every((p) => p.has_vector));
    const done = (await status(resourceId)).body;
    assert.equal(done.status, 'done');
    assert.equal(done.attempts, 2);
    assert.equal(done.pagesDone, 6);
  });

  it('when the worker died in the middle of embedding, then the next run resumes that step without redoing extraction', async () => {
    const { resourceId } = await storeResource(
      t,
      organizationId,
      await makePdf(['First page on chapters.', 'Second page on regions.', 'Third page on awards.']),
    );
    const eventId = await publishEvent(t, 'resource.published', resourceId);
    await jobs['domain-event.deliver']({ eventId, subscriber: 'ingestion.index' }, context());
    const { run_id: runId } = (await t.container.sql.one<{ run_id: string }>(
      'SELECT run_id FROM resource_ingestions WHERE resource_id = $1',
      [resourceId],
    ))!;
    const runner = t.container.services.ingestionRunner;
    // what a killed worker leaves: extraction done, one passage embedded, the embed step and the run still `running`
    await t.container.pipelines.runPipeline(runId, runner.steps().slice(0, 1));
    const [first] = await t.container.sql.rows<{ ordinal: number; content: string; heading_path: string | null }>(
      'SELECT ordinal, content, heading_path FROM resource_passage_drafts WHERE run_id = $1 ORDER BY ordinal LIMIT 1',
      [runId],
    );
    const [vector] = await t.container.embedder.embed([first!.content]);
    await runner.repository.storeDraftVectors(runId, t.container.embedder.model, [
      { ordinal: first!.ordinal, vector: vector! },
    ]);
    await t.container.sql.query(`UPDATE pipeline_runs SET status = 'running', current_step = 'embed' WHERE id = $1`, [
      runId,
    ]);
    await t.container.sql.query(
      `INSERT INTO pipeline_steps (run_id, name, position, status, attempts, started_at) VALUES ($1, 'embed', 1, 'running', 1, now())`,
      [runId],
    );
    await t.container.sql.query(`UPDATE resource_ingestions SET status = 'running' WHERE run_id = $1`, [runId]);
    const extractStarted = await t.container.sql.one<{ started_at: Date }>(
      `SELECT started_at FROM pipeline_steps WHERE run_id = $1 AND name = 'extract'`,
      [runId],
    );

    await jobs['ingestion.run']({ runId }, { ...context(), attempt: 1 });

    const steps = await t.container.sql.rows<{ name: string; status: string; attempts: number; started_at: Date }>(
      `SELECT name, status, attempts, started_at FROM pipeline_steps WHERE run_id = $1 ORDER BY position`,
      [runId],
    );
    assert.deepEqual(
      steps.map((s) => [s.name, s.status, s.attempts]),
      [
        ['extract', 'succeeded', 1],
        ['embed', 'succeeded', 2],
        ['activate', 'succeeded', 1],
      ],
    );
    assert.equal(steps[0]!.started_at.getTime(), extractStarted!.started_at.getTime(), 'extraction was not run again');
    assert.equal((await passagesOf(resourceId)).length, 3);
    assert.equal((await status(resourceId)).body.status, 'done');
  });

  it('when a client admin re-runs an ingestion, then it answers 202 and the version is ingested again; staff may read but not re-run, members neither', async () => {
    const { resourceId } = await storeResource(t, organizationId, await makePdf(['Mentoring scheme details.']), {
      accessLevel: 'public',
    });
    await deliver('resource.published', resourceId);

    const rerun = await t.http.post(`/api/resources/${resourceId}/ingestion`).set(bearer(admin));
    assert.equal(rerun.status, 202);
    assert.equal(rerun.body.status, 'queued');
    assert.ok(rerun.headers['ratelimit-policy']);
    const again = await t.http.post(`/api/resources/${resourceId}/ingestion`).set(bearer(admin));
    assert.equal(again.status, 202);
    assert.equal(
      Number(
        (await t.container.sql.one<{ n: number }>(
          'SELECT count(*)::int AS n FROM pipeline_runs WHERE subject_id IN (SELECT version_id::text FROM resource_ingestions WHERE resource_id = $1)',
          [resourceId],
        ))!.n,
      ),
      2,
      'no second run beside a queued one',
    );
    await runQueued(resourceId);
    assert.equal((await status(resourceId)).body.status, 'done');

    assert.equal((await status(resourceId, staff)).status, 200);
    expectProblem(await t.http.post(`/api/resources/${resourceId}/ingestion`).set(bearer(staff)), 403, 'forbidden');
    expectProblem(await status(resourceId, member), 403, 'forbidden');
    expectProblem(await status(resourceId, outsider), 404, 'not_found');
    expectProblem(await t.http.post(`/api/resources/${resourceId}/ingestion`).set(bearer(outsider)), 404, 'not_found');
  });

  it('when a draft is re-run, then it is refused with 409 (publishing starts the ingestion)', async () => {
    const { resourceId } = await storeResource(t, organizationId, await makePdf(['Draft.']), { status: 'draft' });
    expectProblem(await t.http.post(`/api/resources/${resourceId}/ingestion`).set(bearer(admin)), 409, 'conflict');
  });

  it('when the embedding model changed, then the background job re-embeds the passages of the other model and leaves the current ones', async () => {
    const { resourceId } = await storeResource(
      t,
      organizationId,
      await makePdf(['Chapter grants.', 'Regional awards.']),
    );
    await deliver('resource.published', resourceId);
    if (!vectors) {
      // without pgvector nothing carries a vector, so there is nothing to re-embed
      assert.equal(
        await reembedPassages(
          {
            repository: t.container.services.ingestionRunner.repository,
            embedder: t.container.embedder,
            maxPassages: 100,
            batchSize: 8,
          },
          t.container.logger,
        ),
        0,
      );
      return;
    }
    await t.container.sql.query(
      `UPDATE resource_passages SET embedding_model = 'openai:old@512' WHERE resource_id = $1 AND page_number = 1`,
      [resourceId],
    );
    const before = await t.container.sql.one<{ v: string }>(
      `SELECT embedding::text AS v FROM resource_passages WHERE resource_id = $1 AND page_number = 2`,
      [resourceId],
    );

    const count = await reembedPassages(
      {
        repository: t.container.services.ingestionRunner.repository,
        embedder: t.container.embedder,
        maxPassages: 100,
        batchSize: 8,
      },
      t.container.logger,
    );
    assert.ok(count >= 1);
    const models = await passagesOf(resourceId);
    assert.ok(models.every((p) => p.embedding_model === 'use-lite-512' && p.has_vector));
    const after = await t.container.sql.one<{ v: string }>(
      `SELECT embedding::text AS v FROM resource_passages WHERE resource_id = $1 AND page_number = 2`,
      [resourceId],
    );
    assert.equal(after!.v, before!.v);
    assert.equal(
      await reembedPassages(
        {
          repository: t.container.services.ingestionRunner.repository,
          embedder: t.container.embedder,
          maxPassages: 100,
          batchSize: 8,
        },
        t.container.logger,
      ),
      0,
    );
  });
});
