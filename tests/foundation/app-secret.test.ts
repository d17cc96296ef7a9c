// test-runner: timeout 300 s (it starts the service or a CLI as child processes: minutes on a loaded 2-core machine)
// APP_SECRET seals stored secrets (webhook signing secrets, TOTP seeds) and signs tokens: a secret
// that dies with the process would orphan all of them on the next start or on another instance.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { runChildServiceToExit, startChildService, type ChildService } from '../setup/child-service.ts';

// a start migrates and seeds an embedded database: minutes when the machine is busy
const START_TIMEOUT_MS = 240_000;
const GENERATE = `node -e "console.log(require('node:crypto').randomBytes(32).toString('base64url'))"`;

describe('APP_SECRET at start-up', () => {
  for (const nodeEnv of ['development', 'test', 'production']) {
    it(`when DATABASE_URL is set without APP_SECRET (NODE_ENV=${nodeEnv}), then the service refuses to start and says how to set it`, async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'guildhall-secret-'));
      try {
        // the refusal comes before any connection: the server need not exist
        const { code, output } = await runChildServiceToExit({
          NODE_ENV: nodeEnv,
          DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere',
          DATA_DIR: dataDir,
        });
        assert.equal(code, 78, output);
        assert.match(output, /Configuration error: APP_SECRET is required/);
        assert.ok(output.includes(GENERATE), `the message gives the command:\n${output}`);
        assert.doesNotMatch(output, /listening/);
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  }

  it('when APP_SECRET is set with DATABASE_URL, or neither is set, then the configuration is accepted', () => {
    const secret = 'a-secret-of-at-least-thirty-two-characters';
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://db/x', APP_SECRET: secret }).appSecret, secret);
    assert.equal(loadConfig({}).appSecret, undefined);
    assert.throws(() => loadConfig({ DATABASE_URL: 'postgres://db/x', APP_SECRET: '  ' }), ConfigError);
    assert.throws(
      () => loadConfig({ NODE_ENV: 'production' }),
      (error: Error) => error instanceof ConfigError && error.message.includes(GENERATE),
    );
  });
});

describe('the embedded database keeps its generated APP_SECRET in DATA_DIR', () => {
  const DEMO = { DEMO_ADMIN_EMAIL: 'keeper@demo.test', DEMO_ADMIN_PASSWORD: 'demo-password-123' };
  let dataDir: string;
  let service: ChildService | undefined;
  after(async () => {
    service?.process.kill('SIGKILL');
    await service?.exited;
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function me(port: number, token: string): Promise<number> {
    return (await fetch(`http://127.0.0.1:${port}/api/auth/me`, { headers: { Authorization: `Bearer ${token}` } }))
      .status;
  }

  it('when the process is killed and started again, then the same secret is used: tokens it signed still work', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'guildhall-secret-'));
    service = await startChildService({ DATA_DIR: dataDir, ...DEMO }, START_TIMEOUT_MS);
    const file = path.join(dataDir, 'app-secret');
    const secret = await readFile(file, 'utf8');
    assert.ok(secret.length >= 32);
    assert.equal((await stat(file)).mode & 0o777, 0o600, 'only the owner may read it');
    const login = await fetch(`http://127.0.0.1:${service.port}/api/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: DEMO.DEMO_ADMIN_EMAIL, password: DEMO.DEMO_ADMIN_PASSWORD }),
    });
    assert.equal(login.status, 200);
    const { accessToken } = (await login.json()) as { accessToken: string };
    assert.equal(await me(service.port, accessToken), 200);

    service.process.kill('SIGKILL');
    await service.exited;
    service = await startChildService({ DATA_DIR: dataDir, ...DEMO }, START_TIMEOUT_MS);
    assert.equal(await readFile(file, 'utf8'), secret);
    assert.equal(await me(service.port, accessToken), 200, 'a token from before the restart verifies');
    assert.equal(await me(service.port, `${accessToken.slice(0, -4)}AAAA`), 401, 'and a forged one does not');
  });
});
