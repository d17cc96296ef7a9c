// Ingestion speed: a generated 50-page PDF (~250 words a page) through the real pipeline (storage ->
// extract -> split -> embed with USE-lite in batches -> activate on PGlite with pgvector), in pages/s,
// against a baseline measured in the same run: the same extraction, splitting and embedding called
// directly, with no database, jobs or step state. The ratio is the pipeline's overhead.
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { extractDocument } from '../src/integrations/documents/extraction.ts';
import { jobHandlers } from '../src/jobs/registry.ts';
import { splitIntoPassages } from '../src/modules/ingestion/passage.splitter.ts';
import { buildOrganization } from '../tests/factories/index.ts';
import { publishEvent, storageEnv, storeResource } from '../tests/ingestion/library-fixtures.ts';
import { startTestApp } from '../tests/setup/test-app.ts';
import { makePdf, prose } from '../tests/support/documents.ts';
import { record } from './lib/results.ts';

const PAGES = 50;
const TOPICS = [
  'dues',
  'governance',
  'ethics',
  'audit',
  'travel',
  'awards',
  'mentoring',
  'chapters',
  'elections',
  'training',
];

const t = await startTestApp({ env: storageEnv() });
try {
  const pdf = await makePdf(
    Array.from({ length: PAGES }, (_, i) => `Page ${i + 1}. ${prose(TOPICS[i % TOPICS.length]!, 250)}`),
  );
  const loadStart = performance.now();
  await t.container.embedder.embed(['load the model']);
  const loadMs = performance.now() - loadStart;
  await extractDocument('pdf', await makePdf(['warm up pdf.js'])); // first use loads pdf.js: not per document

  // baseline: the work itself, nothing around it
  const baseStart = performance.now();
  const extraction = await extractDocument('pdf', pdf);
  const passages = splitIntoPassages(extraction.units);
  const extractMs = performance.now() - baseStart;
  for (let i = 0; i < passages.length; i += 16)
    await t.container.embedder.embed(passages.slice(i, i + 16).map((p) => p.text));
  const baseMs = performance.now() - baseStart;

  // the pipeline, as the worker runs it
  const organizationId = (await buildOrganization()).id;
  const { resourceId } = await storeResource(t, organizationId, pdf);
  const jobs = jobHandlers(t.container);
  const context = { jobId: 'bench', attempt: 0, logger: t.container.logger };
  const start = performance.now();
  const eventId = await publishEvent(t, 'resource.published', resourceId);
  await jobs['domain-event.deliver']({ eventId, subscriber: 'ingestion.index' }, context);
  const { run_id: runId } = (await t.container.sql.one<{ run_id: string }>(
    'SELECT run_id FROM resource_ingestions WHERE resource_id = $1',
    [resourceId],
  ))!;
  await jobs['ingestion.run']({ runId }, context);
  const pipelineMs = performance.now() - start;
  const status = await t.container.sql.one<{ status: string; passages: number }>(
    'SELECT status, passages FROM resource_ingestions WHERE run_id = $1',
    [runId],
  );
  if (status?.status !== 'done') throw new Error(`ingestion ended ${status?.status}`);

  const rate = (ms: number) => (PAGES / (ms / 1000)).toFixed(2);
  console.log(
    `\n## Ingestion of a ${PAGES}-page PDF (${passages.length} passages, ${t.db.kind}, USE-lite loaded once in ${loadMs.toFixed(0)} ms)`,
  );
  console.log('| | ms | pages/s |');
  console.log('|---|---:|---:|');
  console.log(`| pipeline (event -> extract -> embed -> activate) | ${pipelineMs.toFixed(0)} | ${rate(pipelineMs)} |`);
  console.log(`| baseline: extraction + splitting only | ${extractMs.toFixed(0)} | ${rate(extractMs)} |`);
  console.log(`| baseline: extraction + splitting + embedding, no database | ${baseMs.toFixed(0)} | ${rate(baseMs)} |`);
  console.log(
    `\npipeline / baseline time: ${(pipelineMs / baseMs).toFixed(2)}x (${status.passages} passages active); load average ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')} on ${cpus().length} cores`,
  );
  record({
    scenario: `Ingestion of a ${PAGES}-page PDF (${t.db.kind}) vs extraction + splitting + embedding without database`,
    figure: 'pipeline',
    unit: 'pages/s',
    value: PAGES / (pipelineMs / 1000),
    baseline: PAGES / (baseMs / 1000),
    ratio: baseMs / pipelineMs,
    target: 'none stated (informational)',
    met: null,
  });
} finally {
  await t.close();
}
