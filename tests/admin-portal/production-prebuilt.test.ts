// test-runner: timeout 300 s (it starts the service or a CLI as child processes: minutes on a loaded 2-core machine)
// The Admin Portal in production mode with a prebuilt components bundle (apart from
// production-mode.test.ts: each file starts a production child service, which takes minutes on a loaded machine).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startChildService, type ChildService } from '../setup/child-service.ts';
import { childDatabaseEnv, createTestDatabase, type TestDatabase } from '../setup/database.ts';

// The Docker image's way: the bundle is built once at image build time (admin/build-bundle.ts) and the
// service, told ADMIN_JS_SKIP_BUNDLE=true, serves it without bundling at start.
describe('Admin Portal in production mode with a prebuilt bundle', { timeout: 360_000 }, () => {
  let service: ChildService;
  let dataDir: string;
  let database: TestDatabase;
  const root = fileURLToPath(new URL('../../', import.meta.url));

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'guildhall-portal-prebuilt-'));
    database = await createTestDatabase();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), path.join(root, 'admin/build-bundle.ts'), path.join(dataDir, 'bundle')],
      {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      },
    );
    assert.match(stdout, /components bundled into/);
    service = await startChildService(
      {
        NODE_ENV: 'production',
        APP_SECRET: 'production-secret-production-secret-0123',
        SMTP_URL: 'smtp://127.0.0.1:2525',
        ADMIN_JS_TMP_DIR: path.join(dataDir, 'bundle'),
        ADMIN_JS_SKIP_BUNDLE: 'true',
        ...childDatabaseEnv(database, dataDir),
      },
      240_000,
    ); // a loaded machine (the whole suite in parallel) can take minutes to start it
  });
  after(async () => {
    service?.process.kill('SIGTERM');
    await service?.exited;
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('when started with ADMIN_JS_SKIP_BUNDLE=true, then the prebuilt components bundle is served and nothing is bundled', async () => {
    const base = `http://127.0.0.1:${service.port}`;
    assert.equal((await fetch(`${base}/admin/login`)).status, 200);
    const bundle = await fetch(`${base}/admin/frontend/assets/components.bundle.js`);
    assert.equal(bundle.status, 200);
    assert.match(await bundle.text(), /impersonation-banner/);
    assert.doesNotMatch(service.output(), /bundling user components/);
  });
});
