// OCR in ingestion, end to end: scanned pages made by the test (text drawn, then skewed, blurred, grained,
// specked and JPEG-compressed; tests/ingestion/scans.ts) are uploaded through the API and ingested by the
// worker with the real tesseract.js and its bundled English model. The status reports the pages read by
// OCR and their confidence, the chat cites the scanned page, two columns read in column order, a PNG is
// read, and a blank scan ends no_text with its reason.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { TesseractOcr } from '../../src/integrations/documents/ocr.ts';
import { IngestionRunner } from '../../src/modules/ingestion/ingestion.pipeline.ts';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { jobHandlers } from '../../src/jobs/registry.ts';
import { publishEvent, storeResource } from './library-fixtures.ts';
import { scanImage, scannedPdf } from './scans.ts';

interface Status {
  status: string;
  pagesTotal: number | null;
  pagesDone: number;
  passages: number;
  ocrPages?: number;
  ocrConfidence?: number | null;
  lastError: string | null;
}

const COVER = 'Boathouse committee records, bound by the secretary.';
const KEYS = [
  'Lantern keys for the boathouse are held by the',
  'harbourmaster and collected from him every',
  'Thursday evening before the launch leaves.',
  'Members who lose a key pay for a new lock.',
];
const LEFT = [
  'The rowing committee meets on',
  'the first Tuesday of each month',
  'in the boathouse library.',
  'Members may attend and speak',
  'on any item of the agenda if',
  'they write to the secretary.',
  'Minutes are kept in the green',
  'binder beside the door.',
];
const RIGHT = [
  'Regatta entries close on the',
  'fifteenth of March each year.',
  'Late entries pay a surcharge',
  'of forty pounds for each crew.',
  'Every crew names a captain',
  'who answers for the boat and',
  'its oars while it is afloat.',
  'Lost oars are charged at cost.',
];

const words = (text: string): string[] => text.toLowerCase().match(/[a-z]+/g) ?? [];

describe('OCR of scanned pages and images', () => {
  let t: TestApp;
  let admin: string;
  let organizationId: string;
  const timings: Array<{ ms: number; render: number; read: number }> = [];
  const confidences: number[] = [];

  before(async () => {
    t = await startTestApp({ workers: true });
    organizationId = (await buildOrganization()).id;
    admin = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
  });
  after(async () => {
    // what the worker measured per page, for the notes
    if (timings.length)
      console.log(
        `OCR step ms (render + read): ${timings.map((x) => `${x.ms} (${x.render} + ${x.read})`).join(', ')}; ` +
          `documents' OCR confidence: ${confidences.join(', ')}`,
      );
    await t?.close();
  });

  async function upload(file: Buffer, fileName: string, name: string): Promise<string> {
    const res = await t.http
      .post('/api/resources')
      .set(bearer(admin))
      .field('name', name)
      .field('accessLevel', 'members')
      .field('status', 'published')
      .attach('file', file, { filename: fileName, contentType: 'application/octet-stream' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id as string;
  }

  async function ingested(resourceId: string): Promise<Status> {
    let status: Status | undefined;
    for (let waited = 0; waited < 120_000; waited += 200) {
      const res = await t.http.get(`/api/resources/${resourceId}/ingestion`).set(bearer(admin));
      assert.equal(res.status, 200);
      status = res.body;
      if (!['not_started', 'queued', 'running'].includes(status!.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // the test's clock stands still: the step's own measure of its time (wall clock)
    const steps = await t.container.sql.rows<{ name: string; ms: number; render: number; read: number }>(
      `SELECT s.name, (s.output->>'ms')::int AS ms, (s.output->>'renderMs')::int AS render, (s.output->>'readMs')::int AS read
         FROM pipeline_steps s JOIN resource_ingestions i ON i.run_id = s.run_id
        WHERE i.resource_id = $1 AND s.name LIKE 'ocr-page-%'`,
      [resourceId],
    );
    for (const step of steps) timings.push({ ms: step.ms, render: step.render, read: step.read });
    if (status?.ocrConfidence != null) confidences.push(status.ocrConfidence);
    return status!;
  }

  const passages = (resourceId: string) =>
    t.container.sql.rows<{ ordinal: number; page_number: number; content: string }>(
      'SELECT ordinal, page_number, content FROM resource_passages WHERE resource_id = $1 ORDER BY ordinal',
      [resourceId],
    );

  let minutes: string;

  it('when a PDF of scanned pages is published, then OCR reads each page without a text layer, the status says how many and how confidently, and page numbers stay exact', async () => {
    const pdf = await scannedPdf([
      { text: COVER },
      await scanImage({ columns: [KEYS], seed: 11 }),
      await scanImage({ columns: [LEFT, RIGHT], skew: -0.8, seed: 23 }),
    ]);
    minutes = await upload(pdf, 'minutes.pdf', 'Boathouse minutes (scanned)');
    const status = await ingested(minutes);
    assert.equal(status.status, 'done', JSON.stringify(status));
    assert.equal(status.pagesTotal, 3);
    assert.equal(status.pagesDone, 3);
    assert.equal(status.ocrPages, 2, 'the cover has a text layer: only the two scans are read by OCR');
    assert.ok(
      typeof status.ocrConfidence === 'number' && status.ocrConfidence >= 0.7 && status.ocrConfidence <= 1,
      `confidence ${status.ocrConfidence}`,
    );
    assert.equal(status.lastError, null);

    const rows = await passages(minutes);
    assert.deepEqual([...new Set(rows.map((p) => p.page_number))], [1, 2, 3]);
    assert.deepEqual(
      rows.map((p) => p.ordinal),
      rows.map((_, i) => i),
      'passages numbered in page order',
    );
    const page2 = words(
      rows
        .filter((p) => p.page_number === 2)
        .map((p) => p.content)
        .join(' '),
    );
    const expected = words(KEYS.join(' '));
    const found = expected.filter((word) => page2.includes(word));
    assert.ok(
      found.length / expected.length >= 0.9,
      `page 2 read ${found.length}/${expected.length} words: ${page2.join(' ')}`,
    );
    for (const word of ['lantern', 'harbourmaster', 'thursday']) assert.ok(page2.includes(word), word);
  });

  it('when a two-column scan is read, then its passages give the first column before the second, sentences whole', async () => {
    const page3 = words(
      (await passages(minutes))
        .filter((p) => p.page_number === 3)
        .map((p) => p.content)
        .join(' '),
    ).join(' ');
    // interleaved columns would split these sentences line by line with the other column's lines
    const first = words('The rowing committee meets on the first Tuesday of each month in the boathouse library').join(
      ' ',
    );
    const second = words('Regatta entries close on the fifteenth of March each year').join(' ');
    assert.ok(page3.includes(first), `first column's sentence whole: ${page3}`);
    assert.ok(page3.includes(second), `second column's sentence whole: ${page3}`);
    assert.ok(page3.indexOf(first) < page3.indexOf(second), 'column 1 before column 2');
    const lastLeft = words('binder beside the door').join(' ');
    assert.ok(page3.indexOf(lastLeft) < page3.indexOf(second), 'all of column 1 before column 2');
  });

  it('when someone asks about a word only the scan holds, then the chat answers from it and cites the scanned page', async () => {
    const res = await t.http
      .post('/api/resources/chat')
      .set(bearer(admin))
      .send({ query: 'When are the lantern keys collected from the harbourmaster?' });
    assert.equal(res.status, 200);
    assert.equal(res.body.mode, 'search');
    assert.equal(res.body.sources[0]?.resourceId, minutes, JSON.stringify(res.body));
    assert.equal(res.body.sources[0].pageNumber, 2, JSON.stringify(res.body.sources));
    assert.match(res.body.answer, /Thursday evening/i);

    const entries = await t.http
      .post('/api/resources/chat')
      .set(bearer(admin))
      .send({ query: 'When do regatta entries close?' });
    assert.equal(entries.status, 200);
    assert.equal(entries.body.sources[0]?.pageNumber, 3, JSON.stringify(entries.body));
    assert.match(entries.body.answer, /fifteenth of March/i);
  });

  it('when the library is searched for words only the scans hold, then the scanned document is found at those pages', async () => {
    for (const [q, page] of [
      ['harbourmaster', 2],
      ['regatta surcharge', 3],
    ] as const) {
      const res = await t.http.get('/api/resources').query({ q }).set(bearer(admin));
      assert.equal(res.status, 200);
      const item = res.body.data.find((entry: { id: string }) => entry.id === minutes);
      assert.ok(item, `"${q}" finds the scanned minutes: ${JSON.stringify(res.body.data)}`);
      assert.deepEqual(
        item.matches.pages.map((match: { pageNumber: number }) => match.pageNumber),
        [page],
        JSON.stringify(item.matches),
      );
    }
  });

  it('when a PNG image of text is published, then OCR reads it as its one page', async () => {
    const png = await sharp(await scanImage({ columns: [KEYS.slice(0, 2)], height: 1.5, seed: 5 }))
      .png()
      .toBuffer();
    const id = await upload(png, 'notice.png', 'Notice on the boathouse door');
    const status = await ingested(id);
    assert.equal(status.status, 'done', JSON.stringify(status));
    assert.equal(status.pagesTotal, 1);
    assert.equal(status.ocrPages, 1);
    assert.ok((status.ocrConfidence ?? 0) >= 0.7, `confidence ${status.ocrConfidence}`);
    const rows = await passages(id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.page_number, 1);
    assert.match(rows[0]!.content, /Lantern keys/);

    const jpeg = await upload(
      await scanImage({ columns: [KEYS.slice(2)], height: 1.5, seed: 6 }),
      'notice.jpg',
      'JPEG',
    );
    const jpegStatus = await ingested(jpeg);
    assert.equal(jpegStatus.status, 'done', JSON.stringify(jpegStatus));
    assert.equal(jpegStatus.ocrPages, 1);
    assert.match((await passages(jpeg))[0]!.content, /Thursday evening/);
  });

  it('when a scanned page is blank, then the ingestion ends no_text and says OCR read nothing there', async () => {
    const id = await upload(await scannedPdf([await scanImage({ columns: [], seed: 3 })]), 'blank.pdf', 'Blank scan');
    const status = await ingested(id);
    assert.equal(status.status, 'no_text', JSON.stringify(status));
    assert.equal(status.ocrPages, 1);
    assert.equal(status.ocrConfidence, null);
    assert.equal(status.passages, 0);
    assert.match(status.lastError ?? '', /No text layer.*OCR read no text on page 1: blank or illegible/);
    assert.deepEqual(await passages(id), []);
  });

  it('when OCR of a page fails (here: it takes too long), then the run fails at that page with the reason, keeps nothing of it, the process lives on, and the retry resumes at that page', async () => {
    const pdf = await scannedPdf([{ text: COVER }, await scanImage({ columns: [KEYS], seed: 17 })]);
    const { resourceId, versionId } = await storeResource(t, organizationId, pdf, { name: 'Keys (scanned)' });
    const repository = t.container.services.ingestionRunner.repository;
    // a run as publishing starts one, without the job: this test runs it by hand
    const runId = await t.db.sequelize.transaction(async (transaction) => {
      const run = await t.container.pipelines.create(
        {
          kind: 'library.ingest',
          organizationId,
          subject: { type: 'resource_version', id: versionId },
          input: { resourceId, versionId },
        },
        transaction,
      );
      const version = (await repository.currentVersion(resourceId, transaction))!;
      await repository.reset(version, { runId: run.id, status: 'queued', now: t.clock.now() }, transaction);
      return run.id;
    });
    const impatient = new TesseractOcr({ pageTimeoutMs: 1 });
    const runner = new IngestionRunner({
      sequelize: t.db.sequelize,
      repository,
      pipelines: t.container.pipelines,
      storage: t.container.storage,
      embedder: t.container.embedder,
      clock: t.clock,
      logger: t.container.logger,
      ocr: impatient,
    });
    try {
      await assert.rejects(runner.run(runId), /OCR took longer than 1 ms/);
    } finally {
      await impatient.close();
    }
    const failed = await t.http.get(`/api/resources/${resourceId}/ingestion`).set(bearer(admin));
    assert.equal(failed.body.status, 'failed');
    assert.match(failed.body.lastError, /OCR took longer/);
    const drafts = await t.container.sql.rows<{ page_number: number }>(
      'SELECT page_number FROM resource_passage_drafts WHERE run_id = $1',
      [runId],
    );
    assert.deepEqual(
      [...new Set(drafts.map((d) => d.page_number))],
      [1],
      "the cover's text stays drafted, page 2 has nothing",
    );
    const steps = await t.container.sql.rows<{ name: string; status: string }>(
      'SELECT name, status FROM pipeline_steps WHERE run_id = $1 ORDER BY position',
      [runId],
    );
    assert.deepEqual(
      steps.map((s) => [s.name, s.status]),
      [
        ['extract', 'succeeded'],
        ['ocr-page-2', 'failed'],
      ],
    );

    // the queue's retry: the app's runner (its OCR engine unharmed) resumes at page 2
    await t.container.services.ingestionRunner.run(runId);
    const done = await ingested(resourceId);
    assert.equal(done.status, 'done', JSON.stringify(done));
    assert.equal(done.ocrPages, 1);
    const rows = await passages(resourceId);
    assert.deepEqual(
      rows.map((p) => p.page_number),
      [1, 2],
    );
    assert.match(rows[1]!.content, /harbourmaster/);
    const extractRuns = await t.container.sql.one<{ attempts: number }>(
      `SELECT attempts FROM pipeline_steps WHERE run_id = $1 AND name = 'extract'`,
      [runId],
    );
    assert.equal(extractRuns!.attempts, 1, 'extraction was not redone');
  });

  it('when an uploaded PNG is damaged past its header, then its ingestion fails once, saying the image could not be read', async () => {
    const png = await sharp(await scanImage({ columns: [KEYS.slice(0, 1)], height: 1, seed: 9 }))
      .png()
      .toBuffer();
    const id = await upload(png.subarray(0, Math.floor(png.length / 3)), 'torn.png', 'Torn notice');
    const status = await ingested(id);
    assert.equal(status.status, 'failed', JSON.stringify(status));
    assert.match(status.lastError ?? '', /page 1 could not be rendered/);
    assert.equal(status.ocrPages, 1);
    assert.deepEqual(await passages(id), []);
  });
});

describe('OCR turned off (OCR_ENABLED=false)', () => {
  let t: TestApp;
  let organizationId: string;
  let admin: string;

  before(async () => {
    t = await startTestApp({ env: { OCR_ENABLED: 'false' } });
    organizationId = (await buildOrganization()).id;
    admin = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
  });
  after(() => t?.close());

  async function publish(
    file: Buffer,
    format: 'pdf' | 'png',
  ): Promise<{ status: string; lastError: string; ocrPages: number }> {
    const { resourceId } = await storeResource(t, organizationId, file, { format });
    const jobs = jobHandlers(t.container);
    const context = { jobId: 'test', attempt: 0, logger: t.container.logger };
    const eventId = await publishEvent(t, 'resource.published', resourceId);
    await jobs['domain-event.deliver']({ eventId, subscriber: 'ingestion.index' }, context);
    const run = await t.container.sql.one<{ run_id: string | null }>(
      'SELECT run_id FROM resource_ingestions WHERE resource_id = $1',
      [resourceId],
    );
    if (run?.run_id) await jobs['ingestion.run']({ runId: run.run_id }, context);
    return (await t.http.get(`/api/resources/${resourceId}/ingestion`).set(bearer(admin))).body;
  }

  it('when OCR is off, then a scanned PDF ends no_text suggesting OCR, and an image is unsupported', async () => {
    const scan = await scanImage({ columns: [KEYS], seed: 4 });
    const pdf = await publish(await scannedPdf([scan]), 'pdf');
    assert.equal(pdf.status, 'no_text');
    assert.equal(pdf.ocrPages, 0);
    assert.match(pdf.lastError, /No text layer.*Run it through OCR/);
    const png = await publish(await sharp(scan).png().toBuffer(), 'png');
    assert.equal(png.status, 'unsupported');
    assert.match(png.lastError, /png files have no text/);
  });
});
