// test-runner: timeout 300 s (it starts the service or a CLI as child processes: minutes on a loaded 2-core machine)
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startChildService, type ChildService } from '../setup/child-service.ts';
import { createTestDatabase, type TestDatabase } from '../setup/database.ts';

const DEMO = {
  DEMO_ADMIN_EMAIL: 'boss@demo.test',
  DEMO_ADMIN_PASSWORD: 'demo-password-123',
  DEMO_API_KEY: 'gh_live_demoKeyForScripts0123456789',
};

function request(port: number, method: string, pathname: string, body?: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: pathname, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the service process: first start, demo data, graceful shutdown', () => {
  let service: ChildService;
  let dataDir: string;
  let database: TestDatabase;

  const serviceEnv = () => ({
    DATA_DIR: dataDir,
    ...(database.databaseUrl
      ? { DATABASE_URL: database.databaseUrl, APP_SECRET: 'process-secret-process-secret-process-01' }
      : {}),
    ...DEMO,
  });

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'guildhall-process-'));
    // Not from the migrated template: this is the first start, which migrates an empty database.
    database = await createTestDatabase({ template: false });
    // a first start (initdb, migrations, AdminJS) on a machine whose 2 cores other suites share
    service = await startChildService(serviceEnv(), 240_000);
  });
  after(async () => {
    service.process.kill('SIGKILL');
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('when it starts on an empty database, then it prints the demo credentials once and they work', async () => {
    const output = service.output();
    assert.match(output, /Guildhall demo data created/);
    assert.match(output, new RegExp(`Platform admin: ${DEMO.DEMO_ADMIN_EMAIL} / ${DEMO.DEMO_ADMIN_PASSWORD}`));
    assert.match(output, new RegExp(`API key\\s+: ${DEMO.DEMO_API_KEY}`));
    assert.match(output, /semantic search|keyword search/);
    const login = await request(
      service.port,
      'POST',
      '/api/auth/login',
      JSON.stringify({ email: DEMO.DEMO_ADMIN_EMAIL, password: DEMO.DEMO_ADMIN_PASSWORD }),
      {
        'Content-Type': 'application/json',
      },
    );
    assert.equal(login.status, 200);
    const health = await request(service.port, 'GET', '/health', undefined, {
      Authorization: `Bearer ${DEMO.DEMO_API_KEY}`,
    });
    assert.equal(health.status, 200);
  });

  it('when SIGTERM arrives during a request, then the request completes, new connections are refused and it exits 0', async () => {
    // Start a request whose body is still arriving when the signal comes.
    const body = JSON.stringify({ email: 'nobody@example.test', password: 'x'.repeat(20) });
    const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: service.port,
          method: 'POST',
          path: '/api/auth/login',
          agent: false,
          headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
        },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 20));
      setTimeout(() => {
        service.process.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(20)), 500);
      }, 200);
    });
    const response = await inFlight;
    assert.equal(response.status, 401, response.body);
    assert.match(response.body, /invalid_credentials/);
    await assert.rejects(request(service.port, 'GET', '/health'), /ECONNREFUSED/);
    assert.equal(await service.exited, 0);
    assert.match(service.output(), /"msg":"stopped"/);
  });

  it("when npm start's own process gets SIGTERM, then the service under npm's shell stops gracefully too", async () => {
    // npm relays the signal to the shell it runs the script with, not to the service under that shell
    const viaNpm = await startChildService(serviceEnv(), 240_000, undefined, 'npm');
    const servicePid = Number(/"pid":(\d+)[^\n]*Guildhall listening/.exec(viaNpm.output())?.[1]);
    assert.notEqual(servicePid, viaNpm.process.pid, 'the service runs under npm, not as npm');
    try {
      const allClosed = new Promise((resolve) => viaNpm.process.once('close', resolve)); // every holder of its output
      viaNpm.process.kill('SIGTERM');
      const outcome = await Promise.race([
        allClosed.then(() => 'stopped'),
        new Promise((resolve) => setTimeout(resolve, 30_000, 'still running')),
      ]);
      assert.equal(outcome, 'stopped', `the service outlived npm:\n${viaNpm.output()}`);
      assert.match(viaNpm.output(), /"signal":"parent exited"[^\n]*shutting down/);
      assert.match(viaNpm.output(), /"msg":"stopped"/);
      await assert.rejects(request(viaNpm.port, 'GET', '/health'), /ECONNREFUSED/);
    } finally {
      try {
        process.kill(servicePid, 'SIGKILL');
      } catch {
        // gone, as it should be
      }
    }
  });
});
