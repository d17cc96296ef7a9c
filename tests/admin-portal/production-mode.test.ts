// test-runner: timeout 300 s (it starts the service or a CLI as child processes: minutes on a loaded 2-core machine)
// The Admin Portal in production mode under Express 5: AdminJS bundles the custom components at start
// into ADMIN_JS_TMP_DIR (not a dot-folder, which Express 5 refuses to serve) and serves them offline.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startChildService, type ChildService } from '../setup/child-service.ts';
import { childDatabaseEnv, createTestDatabase, type TestDatabase } from '../setup/database.ts';

describe('Admin Portal in production mode', { timeout: 180_000 }, () => {
  let service: ChildService;
  let dataDir: string;
  let database: TestDatabase;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'guildhall-portal-'));
    database = await createTestDatabase();
    service = await startChildService({
      NODE_ENV: 'production',
      APP_SECRET: 'production-secret-production-secret-0123',
      SMTP_URL: 'smtp://127.0.0.1:2525', // required in production; nothing is sent in this test
      ADMIN_JS_TMP_DIR: path.join(dataDir, 'adminjs-bundle'),
      ...childDatabaseEnv(database, dataDir),
    });
  });
  after(async () => {
    service?.process.kill('SIGTERM');
    await service?.exited;
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('when started with NODE_ENV=production, then the login page and every script it loads are served', async () => {
    const base = `http://127.0.0.1:${service.port}`;
    const login = await fetch(`${base}/admin/login`);
    assert.equal(login.status, 200);
    const scripts = [...(await login.text()).matchAll(/src="([^"]+\.js)"/g)].map((m) => m[1]!);
    assert.ok(scripts.includes('/admin/frontend/assets/components.bundle.js'), scripts.join(', '));
    for (const script of scripts) {
      let status = 0;
      // the components bundle is built right after start; give it a few seconds
      for (let i = 0; i < 120 && status !== 200; i++) {
        status = (await fetch(`${base}${script}`)).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 500));
      }
      assert.equal(status, 200, `${script} is served`);
    }
    const bundle = await (await fetch(`${base}/admin/frontend/assets/components.bundle.js`)).text();
    assert.match(bundle, /impersonation-banner/, 'our components are in the bundle');
    assert.match(service.output(), /Guildhall listening/);
  });
});
