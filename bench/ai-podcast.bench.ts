// Podcast generation for a 10-page document, end to end through the API and the job: POST
// generate-podcast -> script -> Flite speech (child process, one sentence per call) -> ffmpeg MP3 ->
// ready. Target < 60 s on this machine. Runs on the embedded database (what the test app uses); the
// database's share of the time is negligible next to speech. BENCH_ROUNDS rounds (default 1).
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { bearer, buildOrganization, buildUser, tokenFor } from '../tests/factories/index.ts';
import { buildSourceResource, type PassageInput } from '../tests/factories/generation-sources.ts';
import { startTestApp } from '../tests/setup/test-app.ts';
import { record } from './lib/results.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const TARGET_SECONDS = 60;

const TOPICS = [
  'Membership growth',
  'Finances',
  'Events',
  'Training',
  'Advocacy',
  'Communications',
  'Volunteers',
  'Partnerships',
  'Governance',
  'Next year',
];

/** Ten pages of an annual report: a heading each, four sentences, a figure or two; steps on page 9. */
function tenPageReport(): PassageInput[] {
  return TOPICS.map((topic, i) => ({
    pageNumber: i + 1,
    headingPath: `Annual Report 2025 > ${topic}`,
    content:
      `${topic} was a priority for the board throughout the year. ` +
      `The team reported that ${20 + i * 7}% of members took part in ${topic.toLowerCase()} activities, compared with ${12 + i * 5}% the year before. ` +
      `Spending on ${topic.toLowerCase()} reached $${(0.1 + i * 0.05).toFixed(2)} million, within the approved budget. ` +
      `Members said the most useful change was clearer information from the office. ` +
      (i === 8
        ? '\n1. Publish the board minutes\n2. Hold an open meeting each quarter\n3. Report progress to members'
        : `The committee will review ${topic.toLowerCase()} again in the spring.`),
  }));
}

/** utime + stime (+ cutime + cstime: children that have exited) of one process, from stat(5). */
function statCpu(pid: number | 'self', withExited: boolean): { seconds: number; ppid: number } | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const ticks = [11, 12, ...(withExited ? [13, 14] : [])].reduce((sum, i) => sum + Number(fields[i]), 0);
    return { seconds: ticks / 100, ppid: Number(fields[1]) };
  } catch {
    return null;
  }
}

/** CPU seconds of this process and its children, living (the Flite pool) or exited (ffmpeg). */
function cpuSeconds(): number | null {
  const self = statCpu('self', true);
  if (!self) return null;
  let total = self.seconds;
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const child = statCpu(Number(entry), false);
    if (child && child.ppid === process.pid) total += child.seconds;
  }
  return total;
}

const cpuBefore = cpuSeconds();
const t = await startTestApp({ workers: true });
let report: string[] = [];
try {
  const organizationId = (await buildOrganization()).id;
  const token = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
  const times: number[] = [];
  const cpuTimes: number[] = [];
  let last: any;
  for (let round = 0; round < ROUNDS; round++) {
    const { resource } = await buildSourceResource(organizationId, {
      name: 'Annual Report 2025',
      passages: tenPageReport(),
    });
    const cpuStarted = cpuSeconds();
    const started = performance.now();
    await t.http.post(`/api/resources/${resource.id}/generate-podcast`).set(bearer(token)).expect(202);
    for (;;) {
      const res = await t.http.get(`/api/resources/${resource.id}/podcast`).set(bearer(token)).expect(200);
      if (res.body.status === 'ready') {
        last = res.body;
        break;
      }
      if (res.body.status === 'failed') throw new Error(res.body.error);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    times.push((performance.now() - started) / 1000);
    const cpuDone = cpuSeconds();
    if (cpuStarted !== null && cpuDone !== null) cpuTimes.push(cpuDone - cpuStarted);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const words = (last.transcript as Array<{ text: string }>).reduce(
    (sum, line) => sum + line.text.split(/\s+/).length,
    0,
  );
  report = [
    `podcast for a 10-page document: ${median.toFixed(1)} s (min ${sorted[0]!.toFixed(1)}, max ${sorted.at(-1)!.toFixed(1)}, ${ROUNDS} round(s)); target < ${TARGET_SECONDS} s`,
    `  ${last.transcript.length} lines, ${words} words, ${last.durationSeconds} s of audio (${(last.durationSeconds / median).toFixed(1)}x real time)`,
    ...(cpuTimes.length
      ? [
          `  CPU time of the generation (this process, the Flite processes, ffmpeg): ${cpuTimes.map((c) => c.toFixed(1)).join(', ')} s; on 2 idle cores the wall time is about half to all of that`,
        ]
      : []),
  ];
  record({
    scenario: 'Podcast for a generated 10-page document, through the API and the job',
    figure: `median of ${ROUNDS} round(s)`,
    unit: 's',
    value: median,
    target: `< ${TARGET_SECONDS} s`,
    met: median < TARGET_SECONDS,
  });
  if (median >= TARGET_SECONDS) process.exitCode = 1;
} finally {
  await t.close();
}
const cpuAfter = cpuSeconds();
for (const line of report) console.log(line);
if (cpuBefore !== null && cpuAfter !== null) {
  // the machine may be shared: CPU time says what the work costs whatever else runs
  console.log(
    `  CPU time of the whole run (setup included): ${(cpuAfter - cpuBefore).toFixed(1)} s; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`,
  );
}
