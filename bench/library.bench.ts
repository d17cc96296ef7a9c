// Library files: a large upload through POST /api/resources (multipart, streamed to storage while
// hashed) against raw node:http piping the body to a file on the same disk: throughput ratio (target
// >= 0.8) and the server's RSS growth (target < 100 MB). Then the download of the same file and 100
// random 1 MB range reads against fs.createReadStream (target >= 0.9). BENCH_LIBRARY_MB (500) sets the
// size, BENCH_ROUNDS (3) the alternating rounds, BENCH_RANGE_TRIALS (5) the range trials in each round;
// both servers run in child processes writing under one temporary folder. The CPU each range cost the
// server, this machine's PostgreSQL and the whole machine (from /proc) shows where a difference lies.
import { randomBytes, randomUUID } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  mkdirSync,
} from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { SignJWT } from 'jose';
import { deriveKey, hashPassword } from '../src/shared/crypto.ts';
import { createBenchDatabase } from './lib/database.ts';
import { spawnServer, type RunningServer } from './lib/server.ts';
import { record } from './lib/results.ts';

const APP_SECRET = 'bench-secret-bench-secret-bench-secret-00';
const MB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_LIBRARY_MB ?? 500) * MB;
const RANGES = 100;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RANGE_TRIALS = Number(process.env.BENCH_RANGE_TRIALS ?? 5);
const BOUNDARY = 'guildhall-bench-boundary';
/** Bytes of a response body kept as text (an upload's JSON answer, a problem). */
const TEXT_BYTES = 4000;

/** CPU seconds (user + system) a process has used so far, from /proc (clock ticks of 1/100 s). */
const cpuOf = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

/** CPU seconds used so far by this machine's PostgreSQL processes (the server and its backends). */
const postgresCpu = () => {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += cpuOf(Number(entry));
    } catch {
      // the process ended between listing and reading
    }
  }
  return total;
};

/** CPU seconds the whole machine has been busy so far (every core, every process, the kernel). */
const machineBusy = () => {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) / 100;
};

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

function request(
  url: string,
  options: http.RequestOptions,
  body?: (req: http.ClientRequest) => Promise<void>,
): Promise<{ status: number; bytes: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent: false, ...options }, (res) => {
      // only the first bytes are kept and decoded (a JSON answer or a problem): decoding the first
      // 256 KB of every binary range cost this load generator 6 ms of CPU per response, more than
      // either server spent, so the range trials measured the client
      let bytes = 0;
      const head: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        if (bytes < TEXT_BYTES) head.push(chunk.subarray(0, TEXT_BYTES - bytes));
        bytes += chunk.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, text: Buffer.concat(head).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body) body(req).then(() => req.end(), reject);
    else req.end();
  });
}

async function pipeFile(req: http.ClientRequest, file: string): Promise<void> {
  for await (const chunk of createReadStream(file, { highWaterMark: MB }))
    if (!req.write(chunk)) await once(req, 'drain');
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
  for (let written = 9; written < SIZE; written += MB)
    if (!out.write(block.subarray(0, Math.min(MB, SIZE - written)))) await once(out, 'drain');
  out.end();
  await once(out, 'finish');

  const organizationId = randomUUID();
  const userId = randomUUID();
  await db.pool.query(`INSERT INTO organizations (id, name, slug, plan) VALUES ($1, 'Bench', 'bench', 'enterprise')`, [
    organizationId,
  ]);
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
    DATABASE_URL: db.url,
    APP_SECRET,
    RATE_LIMIT_ENTERPRISE: '100000000',
    JOBS_ENABLED: 'false',
    SMTP_URL: 'smtp://127.0.0.1:2525',
    LIBRARY_STORAGE_DIR: appDir,
    LIBRARY_MAX_FILE_BYTES: String(Math.max(SIZE, 500 * MB)),
  });
  const baseline = await spawnServer('library.baseline.ts', { BASELINE_DIR: baselineDir });
  try {
    const head = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="name"\r\n\r\nLarge file\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="large.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

    // warm-up: first connections, JIT, the first upload and download of each server
    const tiny = path.join(work, 'tiny.pdf');
    const tinyOut = createWriteStream(tiny);
    tinyOut.end(`%PDF-1.4\n${'x'.repeat(100_000)}`);
    await once(tinyOut, 'finish');
    for (let round = 0; round < 3; round++) {
      const warm = await request(
        `${app.url}/api/resources`,
        {
          method: 'POST',
          headers: {
            ...auth,
            'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
            'Content-Length': head.length + 100_009 + tail.length,
          },
        },
        async (req) => {
          req.write(head);
          await pipeFile(req, tiny);
          req.write(tail);
        },
      );
      const warmId = (JSON.parse(warm.text) as { id: string }).id;
      await request(`${app.url}/api/resources/${warmId}/download`, { headers: { ...auth, Range: 'bytes=100-50000' } });
      const base = await request(
        `${baseline.url}/upload`,
        { method: 'POST', headers: { 'Content-Length': 100_009 } },
        (req) => pipeFile(req, tiny),
      );
      await request(`${baseline.url}/file?name=${(JSON.parse(base.text) as { name: string }).name}`, {
        headers: { Range: 'bytes=100-50000' },
      });
    }

    const upload = async (target: 'app' | 'baseline') => {
      const started = process.hrtime.bigint();
      const sent =
        target === 'app'
          ? await withRss(app, () =>
              request(
                `${app.url}/api/resources`,
                {
                  method: 'POST',
                  headers: {
                    ...auth,
                    'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
                    'Content-Length': head.length + SIZE + tail.length,
                  },
                },
                async (req) => {
                  req.write(head);
                  await pipeFile(req, file);
                  req.write(tail);
                },
              ),
            )
          : await withRss(baseline, () =>
              request(`${baseline.url}/upload`, { method: 'POST', headers: { 'Content-Length': SIZE } }, (req) =>
                pipeFile(req, file),
              ),
            );
      const taken = seconds(started);
      if (sent.result.status !== 201)
        throw new Error(`${target} upload answered ${sent.result.status}: ${sent.result.text}`);
      const body = JSON.parse(sent.result.text) as { id?: string; name?: string };
      return {
        seconds: taken,
        growth: sent.growth,
        url:
          target === 'app' ? `${app.url}/api/resources/${body.id}/download` : `${baseline.url}/file?name=${body.name}`,
      };
    };
    const headersOf = (target: 'app' | 'baseline') => (target === 'app' ? auth : {});
    const download = async (target: 'app' | 'baseline', url: string) => {
      const started = process.hrtime.bigint();
      const res = await request(url, { headers: headersOf(target) });
      if (res.bytes !== SIZE) throw new Error(`${target} download returned ${res.bytes} bytes of ${SIZE}`);
      return seconds(started);
    };
    // 100 random 1 MB ranges, 4 at a time (a player seeking, a few clients); each round draws new
    // offsets and gives both servers the same ones
    const rangeCpu = { app: 0, baseline: 0 };
    const rangeMachine = { app: 0, baseline: 0 };
    const rangePostgres = { app: 0, baseline: 0 };
    const ranges = async (target: 'app' | 'baseline', url: string, offsets: number[]) => {
      const pid = (target === 'app' ? app : baseline).child.pid!;
      const cpuBefore = cpuOf(pid);
      const machineBefore = machineBusy();
      const postgresBefore = postgresCpu();
      const started = process.hrtime.bigint();
      const queue = [...offsets];
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let offset = queue.shift(); offset !== undefined; offset = queue.shift()) {
            const res = await request(url, {
              headers: { ...headersOf(target), Range: `bytes=${offset}-${offset + MB - 1}` },
            });
            if (res.status !== 206 || res.bytes !== MB)
              throw new Error(`${target} range answered ${res.status} with ${res.bytes} bytes`);
          }
        }),
      );
      const taken = seconds(started);
      rangeCpu[target] += cpuOf(pid) - cpuBefore;
      rangeMachine[target] += machineBusy() - machineBefore;
      rangePostgres[target] += postgresCpu() - postgresBefore;
      return taken;
    };

    // ROUNDS alternating rounds (the app first in odd rounds, the baseline first in even ones): the
    // machine's drift falls on both sides, and the median ratio is reported with the rounds' spread
    const results = {
      upload: [] as Array<[number, number]>,
      download: [] as Array<[number, number]>,
      ranges: [] as Array<[number, number]>,
    };
    let appGrowth = 0;
    let baselineGrowth = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const order: Array<'app' | 'baseline'> = round % 2 === 0 ? ['app', 'baseline'] : ['baseline', 'app'];
      const uploaded = {
        app: undefined as Awaited<ReturnType<typeof upload>> | undefined,
        baseline: undefined as Awaited<ReturnType<typeof upload>> | undefined,
      };
      for (const target of order) uploaded[target] = await upload(target);
      appGrowth = Math.max(appGrowth, uploaded.app!.growth);
      baselineGrowth = Math.max(baselineGrowth, uploaded.baseline!.growth);
      results.upload.push([uploaded.app!.seconds, uploaded.baseline!.seconds]);
      const downloads = { app: 0, baseline: 0 };
      for (const target of order) downloads[target] = await download(target, uploaded[target]!.url);
      results.download.push([downloads.app, downloads.baseline]);
      // 100 ranges take about a second: one pause of either server swings a single trial by a third,
      // so each round runs RANGE_TRIALS trials, alternating which server goes first
      for (let trial = 0; trial < RANGE_TRIALS; trial++) {
        const offsets = Array.from({ length: RANGES }, () => Math.floor(Math.random() * (SIZE - MB)));
        const rangeSeconds = { app: 0, baseline: 0 };
        for (const target of trial % 2 === 0 ? order : [...order].reverse())
          rangeSeconds[target] = await ranges(target, uploaded[target]!.url, offsets);
        results.ranges.push([rangeSeconds.app, rangeSeconds.baseline]);
      }
    }

    const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
    const summary = (pairs: Array<[number, number]>, bytes: number) => {
      const ratios = pairs.map(([appSeconds, baselineSeconds]) => baselineSeconds / appSeconds);
      const mbps = (secondsTaken: number) => (bytes / MB / secondsTaken).toFixed(0);
      return {
        app: mbps(median(pairs.map(([x]) => x))),
        baseline: mbps(median(pairs.map(([, y]) => y))),
        ratio: median(ratios),
        spread: `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`,
      };
    };
    const rows: Array<[string, ReturnType<typeof summary>, number]> = [
      [`upload ${SIZE / MB} MB (MB/s)`, summary(results.upload, SIZE), 0.8],
      [`download ${SIZE / MB} MB (MB/s)`, summary(results.download, SIZE), 0.9],
      [`${RANGES} random 1 MB ranges, 4 at a time (MB/s)`, summary(results.ranges, RANGES * MB), 0.9],
    ];
    let met = true;
    console.log(
      `median of ${ROUNDS} alternating rounds\n| measure | app | baseline | ratio (rounds) | target |\n|---|---|---|---|---|`,
    );
    for (const [name, { app: appValue, baseline: baselineValue, ratio, spread }, target] of rows) {
      met &&= ratio >= target;
      record({
        scenario: `Library files, median of ${ROUNDS} alternating rounds vs node:http / fs.createReadStream`,
        figure: name,
        value: Number(appValue),
        baseline: Number(baselineValue),
        ratio,
        target: `ratio >= ${target}`,
        met: ratio >= target,
      });
      console.log(
        `| ${name} | ${appValue} | ${baselineValue} | ${ratio.toFixed(2)} (${spread}) | >= ${target} ${ratio >= target ? 'met' : 'NOT met'} |`,
      );
    }
    const msPerRange = (cpuSeconds: number) => ((cpuSeconds / (ROUNDS * RANGE_TRIALS * RANGES)) * 1000).toFixed(2);
    const cpuRows = [
      ['server CPU per 1 MB range (ms)', rangeCpu],
      ['machine CPU per 1 MB range, all processes (ms)', rangeMachine],
      ['PostgreSQL CPU per 1 MB range (ms)', rangePostgres],
    ] as const;
    for (const [name, cpu] of cpuRows)
      console.log(`| ${name} | ${msPerRange(cpu.app)} | ${msPerRange(cpu.baseline)} | | |`);
    const growthMb = appGrowth / MB;
    met &&= growthMb < 100;
    record({
      scenario: `Library files, median of ${ROUNDS} alternating rounds vs node:http / fs.createReadStream`,
      figure: 'server RSS growth during an upload, largest',
      unit: 'MB',
      value: growthMb,
      baseline: baselineGrowth / MB,
      target: '< 100 MB',
      met: growthMb < 100,
    });
    console.log(
      `| server RSS growth during an upload, largest (MB) | ${growthMb.toFixed(0)} | ${(baselineGrowth / MB).toFixed(0)} | | < 100 ${growthMb < 100 ? 'met' : 'NOT met'} |`,
    );
    if (!met) process.exitCode = 1;
  } finally {
    await app.stop();
    await baseline.stop();
  }
} finally {
  await db.drop();
  rmSync(work, { recursive: true, force: true });
}
