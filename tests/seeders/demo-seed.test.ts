// test-runner: timeout 300 s (it starts the service or a CLI as child processes: minutes on a loaded 2-core machine)
// Demo data: created on a first start in development (the README's quick start, here with a `.env`
// file) and printed once; never by a production start; `npm run seed:demo` creates it when asked.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startChildService, type ChildService } from '../setup/child-service.ts';
import { childDatabaseEnv, createTestDatabase, type TestDatabase } from '../setup/database.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const BANNER = /=== Guildhall demo data created ===/;

async function stop(service: ChildService): Promise<void> {
  service.process.kill('SIGTERM');
  assert.equal(await service.exited, 0, `the service did not stop cleanly:\n${service.output().slice(-4000)}`);
}

async function login(port: number, email: string, password: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  return res.status;
}

describe('demo data', { timeout: 900_000 }, () => {
  const dirs: string[] = [];
  const databases: TestDatabase[] = [];

  /** A working directory with its own data folder and, on the server, its own database. */
  async function workspace(): Promise<{ dir: string; env: Record<string, string> }> {
    const dir = await mkdtemp(path.join(tmpdir(), 'guildhall-demo-'));
    dirs.push(dir);
    const database = await createTestDatabase();
    databases.push(database);
    return {
      dir,
      env: {
        ADMIN_JS_TMP_DIR: path.join(dir, 'adminjs'),
        ...childDatabaseEnv(database, path.join(dir, 'data')),
        ...(database.databaseUrl ? { APP_SECRET: 'demo-seed-secret-demo-seed-secret-012345' } : {}),
      },
    };
  }
  after(async () => {
    for (const database of databases) await database.drop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('when development starts on an empty database, then the demo credentials from .env are printed once, and not on the next start', async () => {
    const { dir, env } = await workspace();
    // the quick start's `.env`: read by the service, the real environment still winning (PORT=0 from the test)
    await writeFile(
      path.join(dir, '.env'),
      'DEMO_ADMIN_EMAIL=dotenv.admin@demo.test\nDEMO_ADMIN_PASSWORD=from-the-dotenv-file\nPORT=1\n',
    );
    const first = await startChildService(env, 240_000, dir);
    assert.match(first.output(), BANNER);
    assert.match(first.output(), /Platform admin: dotenv\.admin@demo\.test \/ from-the-dotenv-file/);
    assert.match(first.output(), /Shown this once/);
    // the start-up line names both settings in words that do not read as a contradiction
    assert.match(
      first.output(),
      /Guildhall listening on http:\/\/localhost:\d+ — development mode \(NODE_ENV=development\), serving the live API environment \(APP_ENV=production, gh_live_ keys\)/,
    );
    assert.equal(await login(first.port, 'dotenv.admin@demo.test', 'from-the-dotenv-file'), 200);
    await stop(first);
    const second = await startChildService(env, 240_000, dir);
    assert.doesNotMatch(second.output(), BANNER);
    await stop(second);
  });

  let production: { env: Record<string, string>; dir: string };
  let service: ChildService;
  before(async () => {
    production = await workspace();
    production.env = {
      ...production.env,
      NODE_ENV: 'production',
      APP_SECRET: 'production-secret-production-secret-0123',
      SMTP_URL: 'smtp://127.0.0.1:2525',
    };
    // Production bundles the portal's components at start. Babel looks for its plugins from the working
    // directory, and this one is outside the project, so the bundling fails here: the portal logs it and
    // the service goes on and stops cleanly (it used to die of the unhandled rejection).
  });

  it('when production starts on an empty database, then no demo data is created', async () => {
    service = await startChildService({ ...production.env, APP_ENV: 'sandbox' }, 240_000, production.dir);
    assert.doesNotMatch(service.output(), BANNER);
    assert.match(
      service.output(),
      /production mode \(NODE_ENV=production\), serving the sandbox API environment \(APP_ENV=sandbox, gh_test_ keys\)/,
    );
    assert.equal(await login(service.port, 'admin@guildhall.local', 'anything-at-all'), 401);
    await stop(service);
  });

  it('when npm run seed:demo is run, then it creates the demo data and prints it once; a second run creates nothing', async () => {
    const seed = () =>
      promisify(execFile)(
        process.execPath,
        ['--import', import.meta.resolve('tsx'), path.join(root, 'seeders/seed-demo.ts')],
        {
          cwd: production.dir,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '/tmp',
            ...production.env,
            DEMO_ADMIN_PASSWORD: 'asked-for-demo-data',
          },
        },
      );
    const first = await seed();
    assert.match(first.stdout, BANNER);
    assert.match(first.stdout, /Platform admin: admin@guildhall\.local \/ asked-for-demo-data/);
    const again = await seed();
    assert.doesNotMatch(again.stdout, BANNER);
    assert.match(again.stdout, /Demo data exists already/);
    service = await startChildService(production.env, 240_000, production.dir);
    assert.equal(await login(service.port, 'admin@guildhall.local', 'asked-for-demo-data'), 200);
    await stop(service);
  });

  it('when production starts without SMTP_URL, then it refuses with a configuration error', async () => {
    const { SMTP_URL: _, ...withoutSmtp } = production.env;
    const error = await promisify(execFile)(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), path.join(root, 'src/main.ts')],
      {
        cwd: production.dir,
        env: { PATH: process.env.PATH ?? '', ...withoutSmtp, PORT: '0' },
      },
    ).then(
      () => undefined,
      (failure: { code: number; stderr: string }) => failure,
    );
    assert.equal(error?.code, 78);
    assert.match(error!.stderr, /Configuration error: SMTP_URL is required when NODE_ENV=production/);
  });
});
