// test-runner: own process (it starts and SIGKILLs child processes of the service)
// test-runner: timeout 300 s (kills and restarts of child processes: minutes on a loaded 2-core machine)
// SIGKILL of the worker (src/worker.ts) in the middle of a job, then a restart on the same database:
// the job resumes where it stopped, nothing is lost, nothing is written twice beyond what was in
// flight. Here a full CRM "sync now" against the HubSpot stand-in (started in this process, behind a
// proxy that holds HubSpot's answer to one batch so the kill lands mid-run). The
// in-process test app (no workers) shares the database: it connects the CRM and queues the sync. The
// dead worker's holds are moved into the past instead of waited for: the organization's sync lease
// (120 s), the pg-boss job's expiry (15 min, then pg-boss's own expiry SQL fails it to a retry) and
// that retry's delay; what a restarted worker does with them is what is tested.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { buildMember } from '../factories/records.ts';
import { scanImage, scannedPdf } from '../ingestion/scans.ts';
import { eventually } from '../factories/webhook-receiver.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { type HubSpotStandIn, startHubSpotStandIn } from '../support/hubspot-stand-in.ts';
import { expireKilledJob, startWorker, type WorkerProcess } from '../support/worker-process.ts';

/**
 * A loopback proxy in front of the HubSpot stand-in that records the e-mails of each contact upsert
 * batch HubSpot applied (answered 2xx), and can hold HubSpot's answer to a chosen batch: the batch is
 * applied, the caller does not hear it until released (or ever, once killed).
 */
async function startHoldingProxy(target: string) {
  const applied: string[][] = [];
  let upserts = 0;
  let hold: ((batch: number, emails: string[]) => Promise<void> | undefined) | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const upsert = req.method === 'POST' && req.url === '/crm/v3/objects/contacts/batch/upsert';
      const batch = upsert ? ++upserts : 0;
      const answer = await fetch(new URL(req.url ?? '/', target), {
        method: req.method,
        headers: { ...(req.headers as Record<string, string>), host: new URL(target).host },
        body: body.length > 0 ? new Uint8Array(body) : undefined,
        redirect: 'manual',
      });
      const text = await answer.text();
      if (upsert && answer.ok) {
        const { inputs } = JSON.parse(body.toString('utf8')) as { inputs: Array<{ id: string }> };
        const emails = inputs.map((input) => input.id.toLowerCase());
        applied.push(emails);
        await hold?.(batch, emails);
      }
      const headers: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!['content-length', 'transfer-encoding', 'connection', 'content-encoding'].includes(name))
          headers[name] = value;
      });
      res.writeHead(answer.status, headers);
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    applied,
    setHold: (fn: typeof hold) => (hold = fn),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('SIGKILL of the worker during a job, then a restart', () => {
  let t: TestApp;
  let hub: HubSpotStandIn;
  let proxy: Awaited<ReturnType<typeof startHoldingProxy>>;
  let dataDir: string;
  let workerEnv: Record<string, string>;
  let worker: WorkerProcess | undefined;
  let release: () => void = () => {};
  let tmp: string;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'guildhall-sigkill-jobs-'));
    hub = await startHubSpotStandIn({ budget: 1000 });
    proxy = await startHoldingProxy(hub.url);
    const hubspot = {
      HUBSPOT_API_URL: proxy.url,
      HUBSPOT_AUTHORIZE_URL: `${hub.url}/oauth/authorize`,
      HUBSPOT_CLIENT_ID: hub.clientId,
      HUBSPOT_CLIENT_SECRET: hub.clientSecret,
      CRM_BURST_LIMIT: '1000',
    };
    const library = {
      LIBRARY_STORAGE_DIR: path.join(dataDir, 'files'),
      LIBRARY_UPLOADS_DIR: path.join(dataDir, 'uploads'),
    };
    tmp = path.join(dataDir, 'tmp');
    await mkdir(tmp);
    t = await startTestApp({ env: { JOBS_ENABLED: 'false', ...hubspot, ...library }, workers: false });
    workerEnv = {
      DATABASE_URL: t.db.url,
      DATA_DIR: dataDir,
      APP_SECRET: t.config.appSecret!,
      JOBS_POLLING_SECONDS: '0.5',
      TMPDIR: tmp,
      ...hubspot,
      ...library,
    };
  });
  after(async () => {
    worker?.child.kill('SIGKILL');
    release();
    await t?.close();
    await proxy?.close();
    await hub?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('when the worker is killed mid-way through a full CRM sync, then after a restart every member reaches HubSpot once, and only the unacknowledged batches in flight are upserted again', async (ctx) => {
    const organizationId = (await buildOrganization()).id;
    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId });
    const token = await tokenFor(t, admin);
    // connect (the consent screen is skipped by the stand-in); its first sync has no member to send
    const started = await t.http.post('/api/crm/connection').set(bearer(token)).expect(200);
    const consent = await fetch(new URL(started.body.authorizeUrl), { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') as string);
    const landed = await t.http.get(`${back.pathname}${back.search}`).expect(302);
    assert.equal(landed.headers.location, '/auth/crm/result?result=connected');

    // 450 members: a first round of three batches (300), then a round of two (100 + 50)
    const total = 450;
    const emails = new Set<string>();
    for (let i = 0; i < total; i += 50) {
      const made = await Promise.all(
        Array.from({ length: Math.min(50, total - i) }, (_, k) =>
          buildMember(organizationId, { email: `m${i + k}@sigkill.test`, firstName: `M${i + k}` }),
        ),
      );
      for (const m of made) emails.add(m.email);
    }
    const queuedNow = await t.http.post('/api/crm/sync').set(bearer(token)).expect(202);
    assert.equal(queuedNow.body.queued, total);

    // The 4th upsert batch (the first of the second round to arrive) is applied by HubSpot, but its answer is held:
    // the worker is killed while waiting for it, so it never acknowledges that batch.
    let held: string[] = [];
    proxy.setHold((batch, batchEmails) =>
      batch === 4
        ? new Promise<void>((resolve) => {
            held = batchEmails;
            release = resolve;
          })
        : undefined,
    );
    worker = startWorker(workerEnv);
    await worker.ready();
    await eventually(async () => held.length > 0, 60_000);
    worker.child.kill('SIGKILL');
    assert.equal(await worker.exited, 'SIGKILL');
    release(); // answered to a dead connection
    proxy.setHold(undefined);

    const sql = t.container.sql;
    const queuedAfterKill = new Set(
      (
        await sql.rows<{ email: string }>('SELECT email FROM crm_sync_queue WHERE organization_id = $1', [
          organizationId,
        ])
      ).map((r) => r.email.toLowerCase()),
    );
    const applied = proxy.applied.flat();
    // in flight: applied by HubSpot, not acknowledged (still queued) when the worker died
    const inFlight = new Set(applied.filter((e) => queuedAfterKill.has(e)));
    // the second round's two batches (100 and 50) go at once: either may arrive 4th
    assert.ok([100, 50].includes(held.length), `a batch of the second round (${held.length})`);
    assert.ok(
      held.every((e) => inFlight.has(e)),
      'the held batch was applied by HubSpot and is still queued',
    );
    assert.ok(total - queuedAfterKill.size >= 300, 'the first round was acknowledged before the kill');
    assert.ok(queuedAfterKill.size >= held.length, 'the kill landed mid-run: at least the held batch is left');
    const killedRun = await sql.rows<{ id: string }>(
      `SELECT id FROM crm_sync_runs WHERE organization_id = $1 AND status = 'running'`,
      [organizationId],
    );
    assert.equal(killedRun.length, 1, 'the killed run was never ended by its process');

    // The dead worker's holds, moved into the past instead of waited for.
    const lease = await sql.rows(
      `UPDATE crm_connections SET sync_lease_until = now() - interval '1 second'
        WHERE organization_id = $1 AND sync_lease_until > now() RETURNING organization_id`,
      [organizationId],
    );
    assert.equal(lease.length, 1, 'the killed run held the sync lease');
    await expireKilledJob(t.container.sql, t.db.url, 'crm.sync');

    worker = startWorker(workerEnv);
    await worker.ready();
    const pending = async () =>
      (
        await sql.rows(
          `SELECT 1 FROM pgboss.job WHERE name = 'crm.sync' AND state IN ('created', 'retry', 'active')
           UNION ALL SELECT 1 FROM crm_sync_queue WHERE organization_id = $1`,
          [organizationId],
        )
      ).length;
    await eventually(async () => (await pending()) === 0, 60_000);

    // The final contact set is exactly the members; each was written once, except the records in flight
    // at the kill (applied, never acknowledged), written exactly twice (an upsert by e-mail: same contact).
    assert.deepEqual(new Set(hub.contacts.keys()), emails, 'every member reached HubSpot, no other contact');
    const twice = [...hub.contacts].filter(([, c]) => c.writes === 2).map(([e]) => e);
    assert.deepEqual(new Set(twice), inFlight, 'only the unacknowledged in-flight records were sent again');
    for (const [email, contact] of hub.contacts)
      assert.equal(contact.writes, inFlight.has(email) ? 2 : 1, `${email} written ${contact.writes} times`);
    assert.equal(hub.upsertedRecords, total + inFlight.size);
    const contacts = await sql.one<{ n: number }>(
      'SELECT count(*)::int AS n FROM crm_contacts WHERE organization_id = $1',
      [organizationId],
    );
    assert.equal(contacts?.n, total);

    const runs = await sql.rows<{ id: string; status: string; finished_at: Date | null }>(
      'SELECT id, status, finished_at FROM crm_sync_runs WHERE organization_id = $1 ORDER BY started_at',
      [organizationId],
    );
    assert.ok(
      runs.every((r) => r.status !== 'running' && r.finished_at !== null),
      `every run is recorded as ended: ${JSON.stringify(runs)}`,
    );
    assert.equal(runs.find((r) => r.id === killedRun[0]!.id)?.status, 'failed', 'the killed run is ended as failed');
    assert.equal(runs.at(-1)?.status, 'completed', 'the run after the restart completed');
    ctx.diagnostic(
      `CRM: ${total} members; ${total - queuedAfterKill.size} acknowledged before the kill, ${inFlight.size} in flight (written twice), ${hub.upsertedRecords} upserted records in all`,
    );
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exited, 0, worker.output());
    worker = undefined;
  });

  it('when the worker is killed during the OCR of a multi-page scan, then after a restart the ingestion resumes at the interrupted page and completes: every page once, no duplicate passage, nothing left behind', async (ctx) => {
    const organizationId = (await buildOrganization()).id;
    const admin = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
    const lines = (n: number) => [
      `Page ${n} of the boathouse ledger records the`,
      `harbourmaster's keys, the launch and the oars`,
      `collected on Thursday evening number ${n}.`,
    ];
    const pages = 4;
    const pdf = await scannedPdf(
      await Promise.all(Array.from({ length: pages }, (_, i) => scanImage({ columns: [lines(i + 1)], seed: 31 + i }))),
    );
    const created = await t.http
      .post('/api/resources')
      .set(bearer(admin))
      .field('name', 'Boathouse ledger (scanned)')
      .field('accessLevel', 'members')
      .field('status', 'published')
      .attach('file', pdf, { filename: 'ledger.pdf', contentType: 'application/octet-stream' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const resourceId = created.body.id as string;
    const sql = t.container.sql;
    const steps = () =>
      sql.rows<{ name: string; status: string; attempts: number; finished_at: Date | null }>(
        `SELECT s.name, s.status, s.attempts, s.finished_at FROM pipeline_steps s
           JOIN resource_ingestions i ON i.run_id = s.run_id WHERE i.resource_id = $1 ORDER BY s.position`,
        [resourceId],
      );

    worker = startWorker(workerEnv);
    await worker.ready();
    // killed once page 2 is read and a later page is being read
    const atKill = await eventually(async () => {
      const now = await steps();
      const read = now.filter((s) => s.name.startsWith('ocr-page-') && s.status === 'succeeded');
      return read.length >= 2 && now.some((s) => s.name.startsWith('ocr-page-') && s.status === 'running') && now;
    }, 90_000);
    worker.child.kill('SIGKILL');
    assert.equal(await worker.exited, 'SIGKILL');
    const readBefore = atKill.filter((s) => s.name.startsWith('ocr-page-') && s.status === 'succeeded');
    const interrupted = (await steps()).filter((s) => s.status === 'running').map((s) => s.name);
    assert.equal(interrupted.length, 1, 'one page step was cut off');
    assert.ok(readBefore.length < pages, 'the kill landed before the last page');

    await expireKilledJob(t.container.sql, t.db.url, 'ingestion.run');
    worker = startWorker(workerEnv);
    await worker.ready();
    const status = await eventually(async () => {
      const res = await t.http.get(`/api/resources/${resourceId}/ingestion`).set(bearer(admin)).expect(200);
      return !['not_started', 'queued', 'running'].includes(res.body.status) && res.body;
    }, 90_000);
    assert.equal(status.status, 'done', JSON.stringify(status));
    assert.equal(status.pagesTotal, pages);
    assert.equal(status.pagesDone, pages);

    // `done` is written by the last step itself, a moment before the runner records that step succeeded
    const after = await eventually(async () => {
      const now = await steps();
      return now.every((s) => s.status === 'succeeded') && now;
    }, 30_000);
    for (const done of readBefore) {
      const again = after.find((s) => s.name === done.name)!;
      assert.equal(again.attempts, done.attempts, `${done.name}, read before the kill, is not read again`);
      assert.deepEqual(again.finished_at, done.finished_at);
    }
    assert.equal(after.find((s) => s.name === interrupted[0])?.attempts, 2, 'the cut-off page is read once more');

    const perPage = await sql.rows<{ page: number; n: number; distinct: number }>(
      `SELECT page_number AS page, count(*)::int AS n, count(DISTINCT content)::int AS distinct
         FROM resource_passages WHERE resource_id = $1 GROUP BY page_number ORDER BY page_number`,
      [resourceId],
    );
    assert.deepEqual(
      perPage.map((p) => p.page),
      Array.from({ length: pages }, (_, i) => i + 1),
      'every page has its passages',
    );
    for (const p of perPage) assert.equal(p.n, p.distinct, `page ${p.page}: no passage twice`);
    const outputs = await sql.rows<{ page: number; passages: number }>(
      `SELECT (s.output->>'page')::int AS page, (s.output->>'passages')::int AS passages FROM pipeline_steps s
         JOIN resource_ingestions i ON i.run_id = s.run_id WHERE i.resource_id = $1 AND s.name LIKE 'ocr-page-%'
        ORDER BY 1`,
      [resourceId],
    );
    assert.deepEqual(
      perPage.map((p) => ({ page: p.page, passages: p.n })),
      outputs,
      'each page has exactly the passages its last reading drafted',
    );
    assert.equal(
      status.passages,
      perPage.reduce((sum, p) => sum + p.n, 0),
    );
    const drafts = await sql.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM resource_passage_drafts d JOIN resource_ingestions i ON i.run_id = d.run_id
        WHERE i.resource_id = $1`,
      [resourceId],
    );
    assert.equal(drafts?.n, 0, 'no draft left behind');
    // tsx-*: the TypeScript loader's compile cache (how the test starts the worker), not the service's
    assert.deepEqual(
      (await readdir(tmp)).filter((name) => !name.startsWith('tsx-')),
      [],
      'no temporary file left behind',
    );
    ctx.diagnostic(
      `ingestion: ${pages} scanned pages, killed during ${interrupted[0]} after ${readBefore.length} pages read; ${status.passages} passages`,
    );
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exited, 0, worker.output());
    worker = undefined;
  });
});
