// Each test file gets its own database: a PGlite in a folder of its own by default, or a fresh
// database on the PostgreSQL server named by DATABASE_URL (created here, dropped at the end).
//
// Both start as a copy of a migrated template, so no file pays for initdb and the migrations:
// - PGlite: the first file to need it migrates an in-memory PGlite and dumps its data directory into
//   node_modules/.cache/guildhall-tests/pglite-<key>.tar (under a lock file, so the files the runner
//   starts together do not all build it). Each process unpacks that tarball once into a folder, and
//   every database is a copy of that folder (on /dev/shm where the machine has it): copying 47 MB of
//   files costs a tenth of what PGlite's loadDataDir spends unpacking the tarball into its in-memory
//   file system, about 1.3 s of CPU per database.
// - Server: a template database guildhall_tpl_<key>, built under an advisory lock when missing, then
//   `CREATE DATABASE ... TEMPLATE` per file.
// Templates also hold the job queue's schema and its queues with their default policies (a start
// re-applies a test's own policy with updateQueue, so MAIL_RETRY_* still reach them). <key> hashes
// the migrations folder, the code that runs them and the job catalog, so a changed migration or
// queue builds a new template. Set TEST_DB_TEMPLATE=off to migrate every database from scratch instead.
import { createHash, randomBytes } from 'node:crypto';
import { accessSync, constants, cpSync, existsSync, readFileSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { queueSpecs } from '../../src/jobs/catalog.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { openDatabase, type Database } from '../../src/shared/database.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { migrateUp } from '../../src/shared/migrator.ts';

export interface TestDatabase {
  databaseUrl?: string;
  /** PGlite: its folder (`memory://` for an empty in-memory one). */
  dataDir: string;
  drop(): Promise<void>;
}

const root = fileURLToPath(new URL('../../', import.meta.url));
const cacheDir = path.join(root, 'node_modules', '.cache', 'guildhall-tests');
const useTemplate = process.env.TEST_DB_TEMPLATE !== 'off';

/** Hash of everything that decides what a migrated database holds. */
function templateKey(): string {
  const hash = createHash('sha256');
  const migrations = path.join(root, 'migrations');
  for (const name of readdirSync(migrations).sort())
    hash.update(name).update(readFileSync(path.join(migrations, name)));
  for (const file of [
    'tests/setup/database.ts',
    'src/shared/migrator.ts',
    'src/shared/vector-schema.ts',
    'node_modules/@electric-sql/pglite/package.json',
    'node_modules/@electric-sql/pglite-pgvector/package.json',
    'node_modules/pg-boss/package.json',
  ]) {
    hash.update(file).update(readFileSync(path.join(root, file)));
  }
  hash.update(JSON.stringify(defaultQueueSpecs()));
  return hash.digest('hex').slice(0, 16);
}

const silent = createLogger('silent');

/** The job catalog's queues as the test app configures them by default (tests/setup/test-app.ts). */
const defaultQueueSpecs = () =>
  queueSpecs(
    loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      APP_SECRET: 'test-secret-test-secret-test-secret-0123',
      DATA_DIR: 'memory://',
    }),
  );

/**
 * Migrations, then the job queue's schema, queues (pg-boss 10 makes a partition table per queue: the
 * slowest part of a start) and schedules, as a start would. A test that configures other retry
 * settings still gets them: JobQueue.start applies each policy with updateQueue.
 */
async function prepare(db: Database): Promise<void> {
  await migrateUp(db, silent);
  const queue = new JobQueue({ url: db.url, logger: silent, pollingIntervalSeconds: 60, specs: defaultQueueSpecs() });
  try {
    await queue.start({ workers: false });
  } finally {
    await queue.stop();
  }
}

async function buildPgliteTemplate(): Promise<Buffer> {
  const db = await openDatabase({ dataDir: 'memory://', logger: silent });
  try {
    await prepare(db);
    return Buffer.from(await (await db.dumpDataDir!()).arrayBuffer());
  } finally {
    await db.close();
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The cached tarball, built by whichever test process takes the lock first; the others wait for it. */
async function pgliteTemplateFile(): Promise<Buffer> {
  const key = templateKey();
  const file = path.join(cacheDir, `pglite-${key}.tar`);
  const lock = `${file}.lock`;
  await mkdir(cacheDir, { recursive: true });
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (existsSync(file)) return readFile(file);
    let handle: Awaited<ReturnType<typeof open>> | undefined;
    try {
      handle = await open(lock, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (handle) {
      try {
        await handle.writeFile(String(process.pid));
        await handle.close();
        if (existsSync(file)) return readFile(file);
        const tarball = await buildPgliteTemplate();
        const partial = `${file}.${process.pid}.tmp`;
        await writeFile(partial, tarball);
        await rename(partial, file); // atomic: a reader sees the whole tarball or none
        // Templates of other migration sets are stale now.
        for (const old of readdirSync(cacheDir))
          if (old.startsWith('pglite-') && !old.startsWith(`pglite-${key}`))
            await rm(path.join(cacheDir, old), { force: true });
        return tarball;
      } finally {
        await unlink(lock).catch(() => undefined);
      }
    }
    // Someone else is building it. A lock left by a dead process (or very old) is taken over.
    const holder = Number(await readFile(lock, 'utf8').catch(() => '0'));
    const age = Date.now() - ((await stat(lock).catch(() => undefined))?.mtimeMs ?? Date.now());
    if ((holder && !alive(holder)) || age > 180_000) await unlink(lock).catch(() => undefined);
    if (Date.now() > deadline) throw new Error(`timed out waiting for the test database template (${lock})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Where PGlite databases live: memory-backed when the machine offers room for them (Linux's /dev/shm;
 * a container's is often 64 MB, too small for two 47 MB databases), else the temporary directory.
 */
function databasesDir(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    const { bavail, bsize } = statfsSync('/dev/shm');
    if (bavail * bsize >= 1024 ** 3) return '/dev/shm';
  } catch {
    // no /dev/shm (macOS, Windows) or not writable
  }
  return tmpdir();
}

const PREFIX = 'guildhall-pglite-';
const base = databasesDir();
const ownFolders = new Set<string>();

/** A new folder named after this process, so one left by a killed process can be recognised and removed. */
async function newFolder(): Promise<string> {
  const folder = await mkdtemp(path.join(base, `${PREFIX}${process.pid}-`));
  ownFolders.add(folder);
  return folder;
}

process.once('exit', () => {
  for (const folder of ownFolders) rmSync(folder, { recursive: true, force: true });
});

const OWNER_PID = new RegExp(`^${PREFIX}(\\d+)-`);

/** Folders of test processes that no longer run (killed before their `after` hooks). */
function removeOrphans(): void {
  for (const name of readdirSync(base)) {
    const pid = Number(OWNER_PID.exec(name)?.[1]);
    if (pid && pid !== process.pid && !alive(pid)) rmSync(path.join(base, name), { recursive: true, force: true });
  }
}

let pgliteTemplate: Promise<string> | undefined;
/** This process's template folder: the cached tarball unpacked once. */
function pgliteTemplateFolder(): Promise<string> {
  pgliteTemplate ??= (async () => {
    removeOrphans();
    const buffer = await pgliteTemplateFile();
    const folder = await newFolder();
    const db = await openDatabase({
      dataDir: folder,
      logger: silent,
      loadDataDir: new Blob([new Uint8Array(buffer.buffer as ArrayBuffer, buffer.byteOffset, buffer.byteLength)]),
    });
    await db.close();
    return folder;
  })();
  return pgliteTemplate;
}

const TEMPLATE_LOCK = 482_771_0002; // arbitrary, constant: one template builder at a time on the server

/** The server's template database for the current migrations, built once under an advisory lock. */
async function serverTemplate(serverUrl: string): Promise<string> {
  const name = `guildhall_tpl_${templateKey()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount) return name;
    // Built under another name and renamed when complete, so a crash never leaves a half-migrated template.
    const building = `${name}_build`;
    await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${building}`);
    const url = new URL(serverUrl);
    url.pathname = `/${building}`;
    const db = await openDatabase({ databaseUrl: url.toString(), dataDir: 'memory://', logger: silent });
    try {
      await prepare(db);
    } finally {
      await db.close();
    }
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    return name;
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]).catch(() => undefined);
    await admin.end();
  }
}

/**
 * A child service's database settings: the server database's URL with `filesDir` as DATA_DIR, or on
 * PGlite the database's own folder as DATA_DIR (a migrated copy of the template, so the child skips
 * PGlite's initdb, about 6 s, and the migrations; tests/foundation/process.test.ts keeps one real
 * first start from nothing).
 */
export function childDatabaseEnv(database: TestDatabase, filesDir: string): Record<string, string> {
  return database.databaseUrl
    ? { DATABASE_URL: database.databaseUrl, DATA_DIR: filesDir }
    : { DATA_DIR: database.dataDir };
}

/**
 * `template: false`: an empty database (the app migrates it), e.g. to start PGlite without pgvector;
 * in memory unless `persistent` (a folder that survives closing the app: restart tests). A database
 * from the template is always a folder, so it survives closing the app too.
 */
export async function createTestDatabase(
  options: { persistent?: boolean; template?: boolean } = {},
): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  const withTemplate = useTemplate && options.template !== false;
  if (!serverUrl) {
    if (!withTemplate && !options.persistent) return { dataDir: 'memory://', drop: async () => undefined };
    const template = withTemplate ? await pgliteTemplateFolder() : undefined;
    const dataDir = await newFolder();
    // synchronous: a quarter of fs.promises.cp's CPU for these 1,600 files (0.15 s against 0.55 s)
    if (template) cpSync(template, dataDir, { recursive: true });
    return {
      dataDir,
      async drop() {
        await rm(dataDir, { recursive: true, force: true });
        ownFolders.delete(dataDir);
      },
    };
  }
  const name = `guildhall_test_${randomBytes(6).toString('hex')}`;
  const template = withTemplate ? await serverTemplate(serverUrl) : undefined;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    dataDir: 'memory://',
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
