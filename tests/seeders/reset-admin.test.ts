// test-runner: timeout 300 s (it starts the service or a CLI as child processes: minutes on a loaded 2-core machine)
// npm run reset-admin, run as the command it is (a child process) against a test database: embedded
// PGlite in a data directory, or a server database with DATABASE_URL.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { totpCode } from '../../src/modules/auth/mfa.ts';
import { AuditEntry } from '../../src/modules/audit/audit-entry.model.ts';
import { User } from '../../src/modules/users/user.model.ts';
import { openDatabase } from '../../src/shared/database.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { buildUser } from '../factories/index.ts';
import { buildAdmin, mfaSecretOf } from '../factories/mfa.ts';
import { createTestDatabase, type TestDatabase } from '../setup/database.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const APP_SECRET = 'test-secret-test-secret-test-secret-0123';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The command as `npm run reset-admin -- <args>` runs it, in a directory without a `.env`. */
const resetAdmin = (args: string[], env: Record<string, string>, cwd: string) =>
  cli('scripts/reset-admin.ts', args, env, cwd);

function cli(script: string, args: string[], env: Record<string, string>, cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), path.join(root, script), ...args],
      {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
        timeout: 180_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('npm run reset-admin', { timeout: 900_000 }, () => {
  let database: TestDatabase;
  let cwd: string;
  let env: Record<string, string>;
  let t: TestApp;
  let adminId: string;
  let adminEmail: string;
  let memberEmail: string;
  let mfaSecret: string;

  before(async () => {
    database = await createTestDatabase({ persistent: true });
    cwd = await mkdtemp(path.join(tmpdir(), 'guildhall-reset-admin-'));
    env = {
      APP_SECRET,
      ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : { DATA_DIR: database.dataDir }),
    };
    t = await startTestApp({ database });
    const { admin } = await buildAdmin(t, { email: 'Lost.Admin@demo.test' });
    adminId = admin.id;
    adminEmail = admin.email;
    mfaSecret = mfaSecretOf(admin)!;
    memberEmail = (await buildUser({ role: 'ROLE_MEMBER' })).email;
    // the owner tried too often: the login throttle is closed
    for (let i = 0; i < t.config.loginThrottle.maxFailures; i++)
      await t.http.post('/api/auth/login').send({ email: adminEmail, password: 'forgotten-it' });
    assert.equal(
      (await t.http.post('/api/auth/login').send({ email: adminEmail, password: 'forgotten-it' })).status,
      429,
    );
    await t.close();
  });
  after(async () => {
    await database.drop();
    await rm(cwd, { recursive: true, force: true });
  });

  it('when NODE_ENV=production and --force is missing, then it refuses with exit code 2', async () => {
    const run = await resetAdmin(
      [adminEmail],
      { ...env, NODE_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:2525' },
      cwd,
    );
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /NODE_ENV=production.*--force/);
    assert.doesNotMatch(run.stdout, /Password:/);
  });

  it('when the account is not an admin, then it refuses and says how others recover', async () => {
    const run = await resetAdmin([memberEmail], env, cwd);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /ROLE_MEMBER, not an admin/);
  });

  it('when run for DEMO_ADMIN_EMAIL without flags, then it prints a random password once, keeps MFA, lifts the throttle and audits a system action', async () => {
    const run = await resetAdmin([], { ...env, DEMO_ADMIN_EMAIL: adminEmail.toUpperCase() }, cwd);
    assert.equal(run.code, 0, run.stderr);
    const password = /^Password: (\S+)$/m.exec(run.stdout)?.[1];
    assert.ok(password && password.length >= 12, run.stdout);
    assert.match(run.stdout, /MFA\s+: still enabled/);

    t = await startTestApp({ database });
    try {
      assert.equal(
        (await t.http.post('/api/auth/login').send({ email: adminEmail, password: 'forgotten-it' })).status,
        401,
        'throttle lifted, old guess still wrong',
      );
      const login = await t.http
        .post('/api/auth/login')
        .send({ email: adminEmail, password, otp: totpCode(mfaSecret, t.clock.now()) });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      assert.equal(login.body.mfaVerified, true);
      const entries = await AuditEntry.findAll({ where: { targetId: adminId, action: 'user.credentials_reset' } });
      assert.equal(entries.length, 1);
      assert.equal(entries[0]!.actorType, 'system');
      assert.equal(
        JSON.stringify(entries[0]!.after).includes(password),
        false,
        'the password is not in the audit trail',
      );
    } finally {
      await t.close();
    }
  });

  it('when run with --password and --reset-mfa (and --force in production), then that password works without a code and MFA can be enrolled again', async () => {
    const run = await resetAdmin(
      [adminEmail, '--password', 'chosen-password-123', '--reset-mfa', '--force'],
      { ...env, NODE_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:2525' },
      cwd,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Password: chosen-password-123/);
    assert.match(run.stdout, /MFA\s+: cleared; enrol again/);

    t = await startTestApp({ database });
    try {
      const login = await t.http.post('/api/auth/login').send({ email: adminEmail, password: 'chosen-password-123' });
      assert.equal(login.status, 200);
      const admin = await User.findByPk(adminId);
      assert.equal(admin!.mfaEnabledAt, null);
      assert.equal(admin!.mfaSecret, null);
      const enrolment = await t.http
        .post('/api/auth/mfa/enrollment')
        .set({ Authorization: `Bearer ${login.body.accessToken}` });
      assert.equal(enrolment.status, 201);
      const last = await AuditEntry.findOne({
        where: { targetId: adminId, action: 'user.credentials_reset' },
        order: [['id', 'DESC']],
      });
      assert.deepEqual(
        { mfaCleared: last!.after!.mfaCleared, forced: last!.after!.forced },
        { mfaCleared: true, forced: true },
      );
    } finally {
      await t.close();
    }
  });

  it('when a process has the embedded database open, then it refuses (exit 75) and says to stop the server first', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'guildhall-reset-admin-busy-'));
    const open = await openDatabase({ dataDir, logger: createLogger('silent') });
    try {
      const run = await resetAdmin([adminEmail], { APP_SECRET, DATA_DIR: dataDir }, cwd);
      assert.equal(run.code, 75, run.stderr);
      assert.match(
        run.stderr,
        new RegExp(`in use by another process \\(pid ${process.pid}\\).*stop that process first`),
      );
      // npm run seed:demo alike: one line, no stack trace
      const seed = await cli('seeders/seed-demo.ts', [], { APP_SECRET, DATA_DIR: dataDir }, cwd);
      assert.equal(seed.code, 75, seed.stderr);
      assert.match(
        seed.stderr,
        new RegExp(`^Demo data not created: .*in use by another process \\(pid ${process.pid}\\)`),
      );
      assert.doesNotMatch(seed.stderr, /\n\s+at /, 'no stack trace');
    } finally {
      await open.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
