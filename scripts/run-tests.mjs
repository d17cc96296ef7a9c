// Runs test files with node:test, several files to a process.
//
//   node scripts/run-tests.mjs [path ...] [--exclude path ...] [--test-* flags for node --test]
//
// Paths are folders (every *.test.ts under them) or files; the default is tests/. Starting a process
// for a test file cost about 7.5 s of CPU before its first assertion (tsx loading the application's
// module graph, compiling PGlite's WebAssembly, preparing the contract's validators), so files are
// run in groups: each group is one generated entry file, importing its files one after the other,
// each inside a suite named after it (a file's top-level hooks stay scoped to that file). Groups hold
// files in the order of their paths, folders crossed, at most TEST_GROUP_SIZE (8) of them;
// TEST_GROUP_SIZE=1 gives every file its own process again. A file whose source contains the marker
// `test-runner: own process` always gets one (the SIGKILL tests).
//
// --test-timeout=N bounds each test file (its suite in the entry file, its tests included), not the
// process running a group: the process gets the sum of its files' bounds, plus a minute to start. A file
// marked `test-runner: timeout <seconds> s` is bounded by that instead, when it is more.
//
// Every test app records the requests it answered (tests/setup/request-log.ts) into a folder of this
// run, GUILDHALL_TEST_REQUEST_LOG. A file containing the marker `test-runner: after the others` (the
// contract coverage check, which reads those records) runs in a process of its own once all the others
// have ended, and only in a run of the whole suite or when it is named itself.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const OWN_PROCESS = 'test-runner: own process';
const AFTER_THE_OTHERS = 'test-runner: after the others';
const groupSize = Math.max(1, Number(process.env.TEST_GROUP_SIZE ?? 8) || 8);

const targets = [];
const excluded = [];
const nodeTestFlags = [];
for (let i = 2; i < process.argv.length; i++) {
  const arg = process.argv[i];
  if (arg === '--exclude') excluded.push(path.resolve(root, process.argv[++i]));
  else if (arg.startsWith('--')) nodeTestFlags.push(arg);
  else targets.push(path.resolve(root, arg));
}
if (targets.length === 0) targets.push(path.join(root, 'tests'));
const wholeSuite = excluded.length === 0 && targets.includes(path.join(root, 'tests'));

function testFilesUnder(target) {
  if (excluded.some((dir) => target === dir || target.startsWith(dir + path.sep))) return [];
  if (!existsSync(target)) {
    console.error(`no such test file or folder: ${path.relative(root, target)}`);
    process.exit(1);
  }
  if (!statSync(target).isDirectory()) return [target];
  return readdirSync(target, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(target, entry.name);
    return entry.isDirectory() || entry.name.endsWith('.test.ts') ? testFilesUnder(full) : [];
  });
}
const files = [...new Set(targets.flatMap((target) => testFilesUnder(target)))].sort();
if (files.length === 0) {
  console.error(`no *.test.ts files under ${targets.map((target) => path.relative(root, target)).join(', ')}`);
  process.exit(1);
}

// in order, cut at groupSize (a group may span folders: every process saved is 7.5 s of CPU)
const groups = [];
let shared;
const afterTheOthers = [];
for (const file of files) {
  if (readFileSync(file, 'utf8').includes(AFTER_THE_OTHERS)) {
    if (wholeSuite || targets.includes(file)) afterTheOthers.push(file);
    else
      console.log(
        `# ${path.relative(root, file)} runs with the whole suite only (or when named): it checks the requests of every test file`,
      );
    continue;
  }
  const folder = path.dirname(file);
  if (groupSize === 1 || readFileSync(file, 'utf8').includes(OWN_PROCESS)) {
    groups.push({ folder, files: [file], own: true });
    continue;
  }
  if (shared && shared.files.length < groupSize) shared.files.push(file);
  else groups.push((shared = { folder, files: [file] }));
}

// the entry files live in a folder of this run's own, removed when it ends (and, if the run was
// killed, by the next run: a folder whose process is gone)
const groupsRoot = path.join(root, 'node_modules/.cache/guildhall-tests/groups');
const running = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
};
mkdirSync(groupsRoot, { recursive: true });
for (const old of readdirSync(groupsRoot))
  if (!running(Number(old))) rmSync(path.join(groupsRoot, old), { recursive: true, force: true });
const groupDir = path.join(groupsRoot, String(process.pid));
mkdirSync(groupDir, { recursive: true });
const timeoutFlag = nodeTestFlags.find((flag) => flag.startsWith('--test-timeout='));
const fileTimeout = timeoutFlag ? Number(timeoutFlag.slice('--test-timeout='.length)) : undefined;
// A file may ask for more with the marker `test-runner: timeout <seconds> s` (the browser files: a dozen
// pages rendered in Chromium take minutes on a busy 2-core machine, where a hung test still shows).
const TIMEOUT_MARKER = /test-runner: timeout (\d+) s/;
const timeoutOf = (file) => {
  const marked = readFileSync(file, 'utf8').match(TIMEOUT_MARKER);
  return fileTimeout && marked ? Math.max(fileTimeout, Number(marked[1]) * 1000) : fileTimeout;
};
const entries = groups.map((group, index) => {
  const name = `${path.relative(path.join(root, 'tests'), group.folder).replaceAll(path.sep, '-') || 'tests'}-${index + 1}.test.mjs`;
  const entry = path.join(groupDir, name);
  const suites = group.files.map((file) => {
    const label = path.relative(root, file).replaceAll(path.sep, '/');
    const options = fileTimeout ? `{ timeout: ${timeoutOf(file)} }, ` : '';
    return `describe(${JSON.stringify(label)}, ${options}async () => {\n  await import(${JSON.stringify(pathToFileURL(file).href)});\n});`;
  });
  writeFileSync(entry, `import { describe } from 'node:test';\n\n${suites.join('\n')}\n`);
  return entry;
});

// Each file's duration, written by scripts/test-times-reporter.mjs beside the reporter shown (spec,
// unless reporters were given), summed up when the run ends; one file per node --test run (a
// destination is truncated when a run opens it). Given reporters without destinations leave no room
// for a second one: then no times.
const timesFiles = [];
const reportersGiven = nodeTestFlags.some((flag) => flag.startsWith('--test-reporter'));
const shownReporter = reportersGiven ? [] : ['--test-reporter=spec', '--test-reporter-destination=stdout'];
const timesReported = !reportersGiven || nodeTestFlags.some((flag) => flag.startsWith('--test-reporter-destination'));
const reporterFlags = () => {
  if (!timesReported) return shownReporter;
  const timesFile = path.join(groupDir, `file-times-${timesFiles.length + 1}.tsv`);
  timesFiles.push(timesFile);
  const reporter = pathToFileURL(path.join(root, 'scripts/test-times-reporter.mjs')).href;
  return [...shownReporter, `--test-reporter=${reporter}`, `--test-reporter-destination=${timesFile}`];
};

const requestLog = path.join(groupDir, 'requests');
const env = { ...process.env, GUILDHALL_TEST_REQUEST_LOG: requestLog };
let current;
const run = (testFiles, processTimeout) =>
  new Promise((resolve) => {
    if (testFiles.length === 0) return resolve(0);
    const flags = nodeTestFlags.map((flag) =>
      flag === timeoutFlag ? `--test-timeout=${processTimeout + 60_000}` : flag,
    );
    current = spawn(process.execPath, ['--import', 'tsx', '--test', ...flags, ...reporterFlags(), ...testFiles], {
      cwd: root,
      stdio: 'inherit',
      env,
    });
    current.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
let stopped = false;
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    stopped = true;
    current?.kill(signal);
  });
const groupTimeout = (files) => files.reduce((sum, file) => sum + (timeoutOf(file) ?? 0), 0);
const started = performance.now();
const code = await run(entries, Math.max(...groups.map((group) => groupTimeout(group.files))));
const afterCode = stopped ? 1 : await run(afterTheOthers, groupTimeout(afterTheOthers));
printFileTimes((performance.now() - started) / 1000);
rmSync(groupDir, { recursive: true, force: true });
process.exit(code || afterCode);

/** The slowest files and the sum of every file's time against the run's wall time (docs/testing.md). */
function printFileTimes(wallSeconds) {
  const times = timesFiles
    .filter((file) => existsSync(file))
    .flatMap((file) => readFileSync(file, 'utf8').split('\n'))
    .filter(Boolean)
    .map((line) => line.split('\t'))
    .map(([ms, file]) => ({ seconds: Number(ms) / 1000, file }))
    .sort((a, b) => b.seconds - a.seconds);
  if (times.length < 2) return;
  const sum = times.reduce((total, { seconds }) => total + seconds, 0);
  console.log(
    `\n# ${times.length} files in ${wallSeconds.toFixed(0)} s of wall time; their own times add up to ${sum.toFixed(0)} s`,
  );
  console.log('# slowest (their suite in a group process, its app and database included):');
  for (const { seconds, file } of times.slice(0, 15)) console.log(`#   ${seconds.toFixed(1).padStart(6)} s  ${file}`);
}
