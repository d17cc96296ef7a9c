// Library files: a large upload through POST /api/resources (multipart, streamed to storage while
// hashed) against raw node:http piping the body to a file on the same disk: throughput ratio (target
// >= 0.8) and the server's RSS growth (target < 100 MB). Then the download of the same file and 100
// random 1 MB range reads against fs.createReadStream (target >= 0.9). BENCH_LIBRARY_MB (500) sets the
// size; both servers run in child processes writing under one temporary folder.
import { randomBytes, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { SignJWT } from 'jose';
import { deriveKey, hashPassword } from '../src/shared/crypto.ts';
import { createBenchDatabase } from './lib/database.ts';
import { spawnServer, type RunningServer } from './lib/server.ts';

const APP_SECRET = 'bench-secret-bench-secret-bench-secret-00';
const MB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_LIBRARY_MB ?? 500) * MB;
const RANGES = 100;
const BOUNDARY = 'guildhall-bench-boundary';

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

/** Samples the server's RSS while `work` runs: the growth over the RSS before. */
async function withRss<T>(server: RunningServer, work: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const before = rssOf(server.child.pid!);
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, rssOf(server.child.pid!))), 50);
  try {
    const result = await work();
    return { result, growth: peak - before };
  } finally {
    clearInterval(timer);
  }
}

function request(url: string, options: http.RequestOptions, body?: (req: http.ClientRequest) => Promise<void>): Promise<{ status: number; bytes: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent: false, ...options }, (res) => {
      let bytes = 0;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (chunks.length < 4) chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, text: Buffer.concat(chunks).toString('utf8').slice(0, 2000) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body) body(req).then(() => req.end(), reject);
    else req.end();
  });
}

async function pipeFile(req: http.ClientRequest, file: string): Promise<void> {
  for await (const chunk of createReadStream(file, { highWaterMark: MB })) if (!req.write(chunk)) await once(req, 'drain');
}

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

const work = mkdtempSync(path.join(tmpdir(), 'guildhall-bench-library-'));
const db = await createBenchDatabase();
try {
  // the file: a PDF header (so the content check passes) then incompressible bytes
  const file = path.join(work, 'large.pdf');
  const out = createWriteStream(file);
  const block = randomBytes(MB);
  out.write('%PDF-1.4\n');
  for (let written = 9; written < SIZE; written += MB) if (!out.write(block.subarray(0, Math.min(MB, SIZE - written)))) await once(out, 'drain');
  out.end();
  await once(out, 'finish');

  const organizationId = randomUUID();
  const userId = randomUUID();
  await db.pool.query(`INSERT INTO organizations (id, name, slug, plan) VALUES ($1, 'Bench', 'bench', 'enterprise')`, [organizationId]);
  await db.pool.query(
    `INSERT INTO users (id, organization_id, first_name, last_name, email, role, status, password_hash)
     VALUES ($1, $2, 'Bench', 'Admin', 'bench@example.test', 'ROLE_CLIENT_ADMIN', 'active', $3)`,
    [userId, organizationId, await hashPassword('bench')],
  );
  const token = await new SignJWT({ org: organizationId, roles: ['ROLE_CLIENT_ADMIN'], amr: ['pwd'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(userId)
    .setIssuer('guildhall')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(deriveKey(APP_SECRET, 'jwt'));
  const auth = { Authorization: `Bearer ${token}` };

  const appDir = path.join(work, 'app');
  const baselineDir = path.join(work, 'baseline');
  mkdirSync(baselineDir);
  const app = await spawnServer('app.server.ts', {
    DATABASE_URL: db.url, APP_SECRET, RATE_LIMIT_ENTERPRISE: '100000000', JOBS_ENABLED: 'false', SMTP_URL: 'smtp://127.0.0.1:2525',
    LIBRARY_STORAGE_DIR: appDir, LIBRARY_MAX_FILE_BYTES: String(Math.max(SIZE, 500 * MB)),
  });
  const baseline = await spawnServer('library.baseline.ts', { BASELINE_DIR: baselineDir });
  try {
    const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="name"\r\n\r\nLarge file\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="large.pdf"\r\nContent-Type: application/pdf\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

    // warm-up: first connections, JIT, the first upload and download of each server
    const tiny = path.join(work, 'tiny.pdf');
    const tinyOut = createWriteStream(tiny);
    tinyOut.end('%PDF-1.4\n' + 'x'.repeat(100_000));
    await once(tinyOut, 'finish');
    for (let round = 0; round < 3; round++) {
      const warm = await request(`${app.url}/api/resources`, { method: 'POST', headers: { ...auth, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': head.length + 100_009 + tail.length } }, async (req) => {
        req.write(head);
        await pipeFile(req, tiny);
        req.write(tail);
      });
      const warmId = (JSON.parse(warm.text) as { id: string }).id;
      await request(`${app.url}/api/resources/${warmId}/download`, { headers: { ...auth, Range: 'bytes=100-50000' } });
      const base = await request(`${baseline.url}/upload`, { method: 'POST', headers: { 'Content-Length': 100_009 } }, (req) => pipeFile(req, tiny));
      await request(`${baseline.url}/file?name=${(JSON.parse(base.text) as { name: string }).name}`, { headers: { Range: 'bytes=100-50000' } });
    }

    // upload: the app, then the baseline
    let start = process.hrtime.bigint();
    const appUpload = await withRss(app, () =>
      request(`${app.url}/api/resources`, { method: 'POST', headers: { ...auth, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': head.length + SIZE + tail.length } }, async (req) => {
        req.write(head);
        await pipeFile(req, file);
        req.write(tail);
      }),
    );
    const appUploadSeconds = seconds(start);
    if (appUpload.result.status !== 201) throw new Error(`upload answered ${appUpload.result.status}: ${appUpload.result.text}`);
    const resourceId = (JSON.parse(appUpload.result.text) as { id: string }).id;
    start = process.hrtime.bigint();
    const baselineUpload = await withRss(baseline, () =>
      request(`${baseline.url}/upload`, { method: 'POST', headers: { 'Content-Length': SIZE } }, (req) => pipeFile(req, file)),
    );
    const baselineUploadSeconds = seconds(start);
    const baselineName = (JSON.parse(baselineUpload.result.text) as { name: string }).name;

    // whole download
    start = process.hrtime.bigint();
    const appDownload = await request(`${app.url}/api/resources/${resourceId}/download`, { headers: auth });
    const appDownloadSeconds = seconds(start);
    start = process.hrtime.bigint();
    const baselineDownload = await request(`${baseline.url}/file?name=${baselineName}`, {});
    const baselineDownloadSeconds = seconds(start);
    if (appDownload.bytes !== SIZE || baselineDownload.bytes !== SIZE) throw new Error(`downloads returned ${appDownload.bytes} / ${baselineDownload.bytes} bytes of ${SIZE}`);

    // 100 random 1 MB ranges, the same offsets for both, 4 at a time (a player seeking, a few clients)
    const offsets = Array.from({ length: RANGES }, () => Math.floor(Math.random() * (SIZE - MB)));
    const ranges = async (url: string, headers: Record<string, string>) => {
      const started = process.hrtime.bigint();
      const queue = [...offsets];
      await Promise.all(Array.from({ length: 4 }, async () => {
        for (let offset = queue.shift(); offset !== undefined; offset = queue.shift()) {
          const res = await request(url, { headers: { ...headers, Range: `bytes=${offset}-${offset + MB - 1}` } });
          if (res.status !== 206 || res.bytes !== MB) throw new Error(`range answered ${res.status} with ${res.bytes} bytes`);
        }
      }));
      return seconds(started);
    };
    const appRangeSeconds = await ranges(`${app.url}/api/resources/${resourceId}/download`, auth);
    const baselineRangeSeconds = await ranges(`${baseline.url}/file?name=${baselineName}`, {});

    const mbps = (secondsTaken: number, bytes = SIZE) => (bytes / MB / secondsTaken).toFixed(0);
    const ratio = (baselineSeconds: number, appSeconds: number) => baselineSeconds / appSeconds;
    const rows: Array<[string, string, string, number, number]> = [
      [`upload ${SIZE / MB} MB (MB/s)`, mbps(appUploadSeconds), mbps(baselineUploadSeconds), ratio(baselineUploadSeconds, appUploadSeconds), 0.8],
      [`download ${SIZE / MB} MB (MB/s)`, mbps(appDownloadSeconds), mbps(baselineDownloadSeconds), ratio(baselineDownloadSeconds, appDownloadSeconds), 0.9],
      [`${RANGES} random 1 MB ranges (MB/s)`, mbps(appRangeSeconds, RANGES * MB), mbps(baselineRangeSeconds, RANGES * MB), ratio(baselineRangeSeconds, appRangeSeconds), 0.9],
    ];
    let met = true;
    console.log('| measure | app | baseline | ratio | target |\n|---|---|---|---|---|');
    for (const [name, appValue, baselineValue, value, target] of rows) {
      met &&= value >= target;
      console.log(`| ${name} | ${appValue} | ${baselineValue} | ${value.toFixed(2)} | >= ${target} ${value >= target ? 'met' : 'NOT met'} |`);
    }
    const growthMb = appUpload.growth / MB;
    met &&= growthMb < 100;
    console.log(`| server RSS growth during the upload (MB) | ${growthMb.toFixed(0)} | ${(baselineUpload.growth / MB).toFixed(0)} | | < 100 ${growthMb < 100 ? 'met' : 'NOT met'} |`);
    if (!met) process.exitCode = 1;
  } finally {
    await app.stop();
    await baseline.stop();
  }
} finally {
  await db.drop();
  rmSync(work, { recursive: true, force: true });
}
