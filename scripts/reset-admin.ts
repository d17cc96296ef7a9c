// npm run reset-admin -- [email] [--password <new>] [--reset-mfa] [--force]
// Recovers lost (demo) admin credentials: sets a new password on an admin account, optionally clears
// its MFA enrolment, lifts the failed-login throttle, records a system audit entry and prints the
// credentials once. Runs against the configured database (DATABASE_URL, or the embedded one in DATA_DIR,
// which the server must not have open: one process per embedded data directory).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../src/config.ts';
import type { Database } from '../src/shared/database.ts';
import { DataDirInUseError } from '../src/shared/data-dir-lock.ts';
import { loadDotEnv } from '../src/shared/dot-env.ts';
import { DEFAULT_ADMIN_EMAIL } from '../seeders/demo-admin.ts';

const USAGE = `Usage: npm run reset-admin -- [email] [--password <new password>] [--reset-mfa] [--force]

  email        the admin account (platform or client admin); default DEMO_ADMIN_EMAIL or ${DEFAULT_ADMIN_EMAIL}
  --password   the new password (at least 12 characters); default: a random one
  --reset-mfa  also clear the account's MFA enrolment (lost authenticator); it can enrol again after login
  --force      required when NODE_ENV=production

Embedded database: stop the server first (only one process may open DATA_DIR).`;

const EX_USAGE = 64;
const ADMIN_ROLES = new Set(['ROLE_PLATFORM_ADMIN', 'ROLE_CLIENT_ADMIN', 'ROLE_SPONSOR_ADMIN']);

class Refusal extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

function parse() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        password: { type: 'string' },
        'reset-mfa': { type: 'boolean', default: false },
        force: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new Refusal(`${(error as Error).message}\n\n${USAGE}`, EX_USAGE);
  }
}

async function run(): Promise<void> {
  const { values, positionals } = parse();
  if (values.help) return void console.log(USAGE);
  if (positionals.length > 1) throw new Refusal(`One e-mail at most.\n\n${USAGE}`, EX_USAGE);
  if (values.password !== undefined && values.password.length < 12)
    throw new Refusal('--password must have at least 12 characters', EX_USAGE);

  loadDotEnv();
  const config = loadConfig();
  if (config.nodeEnv === 'production' && !values.force) {
    throw new Refusal(
      'NODE_ENV=production: resetting an admin password there must be deliberate. Run again with --force (it is recorded in the audit log).',
      2,
    );
  }
  const email = (positionals[0] ?? config.demo.adminEmail ?? DEFAULT_ADMIN_EMAIL).trim();
  if (
    !config.databaseUrl &&
    config.dataDir !== 'memory://' &&
    !existsSync(path.resolve(config.dataDir, 'pg', 'PG_VERSION'))
  ) {
    throw new Refusal(
      `No embedded database in ${path.resolve(config.dataDir)} (DATA_DIR). Run this where you run npm start, with the same DATA_DIR or DATABASE_URL.`,
    );
  }

  // loaded once the arguments and the configuration are known good, so a refusal answers in a moment
  const [
    { Sequelize },
    { createContainer },
    { systemActor },
    { resolveAppSecret },
    { hashPassword, randomToken },
    { openDatabase },
    { createLogger },
    { User },
  ] = await Promise.all([
    import('sequelize'),
    import('../src/container.ts'),
    import('../src/shared/access/actor.ts'),
    import('../src/shared/app-secret.ts'),
    import('../src/shared/crypto.ts'),
    import('../src/shared/database.ts'),
    import('../src/shared/logger.ts'),
    import('../src/modules/users/user.model.ts'),
  ]);
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  let db: Database;
  try {
    db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger });
  } catch (error) {
    if (error instanceof DataDirInUseError) throw new Refusal(error.message, 75); // EX_TEMPFAIL
    throw error;
  }
  const container = createContainer({ config, logger, db, appSecret: await resolveAppSecret(config, logger) });
  try {
    const user = await User.findOne({
      where: Sequelize.where(Sequelize.fn('lower', Sequelize.col('email')), email.toLowerCase()),
    });
    if (!user)
      throw new Refusal(
        `No user ${email}.${email === (config.demo.adminEmail ?? DEFAULT_ADMIN_EMAIL) ? ' To create the demo admin, run npm run seed:demo.' : ''}`,
      );
    if (!ADMIN_ROLES.has(user.role))
      throw new Refusal(
        `${user.email} is ${user.role}, not an admin: use the password reset e-mail for other accounts.`,
      );

    // never a leading '-', which would read as an option when pasted after --password
    const password = values.password ?? randomToken(12).replace(/^-/, 'x');
    const passwordHash = await hashPassword(password);
    const mfaWasEnabled = user.mfaEnabledAt !== null;
    await db.sequelize.transaction(async (transaction) => {
      await user.update(
        { passwordHash, ...(values['reset-mfa'] ? { mfaSecret: null, mfaEnabledAt: null } : {}) },
        { transaction },
      );
      await container.services.audit.record(
        systemActor(user.organizationId),
        {
          action: 'user.credentials_reset',
          targetType: 'user',
          targetId: user.id,
          organizationId: user.organizationId,
          after: {
            via: 'npm run reset-admin',
            passwordReset: true,
            mfaCleared: values['reset-mfa'] && mfaWasEnabled,
            forced: values.force,
            nodeEnv: config.nodeEnv,
          },
        },
        transaction,
      );
    });
    await container.services.auth.liftLoginThrottle(user.email);

    const mfaLine = values['reset-mfa']
      ? `MFA     : cleared${mfaWasEnabled ? '' : ' (was not enabled)'}; enrol again with POST /api/auth/mfa/enrollment`
      : mfaWasEnabled
        ? 'MFA     : still enabled: log in with the one-time code too (lost the authenticator? run again with --reset-mfa)'
        : 'MFA     : not enabled';
    const rule = '='.repeat(72);
    console.log(
      [
        rule,
        '=== Guildhall admin credentials reset ===',
        `Account : ${user.email} (${user.role}${user.status === 'active' ? '' : `, status ${user.status}: cannot log in until reactivated`})`,
        `Password: ${password}`,
        mfaLine,
        `Log in  : ${config.baseUrl}/admin`,
        'Shown this once: only a hash is stored.',
        rule,
      ].join('\n'),
    );
  } finally {
    await container.close();
    await db.close();
  }
}

run().catch((error: unknown) => {
  if (error instanceof Refusal) {
    console.error(`reset-admin: ${error.message}`);
    process.exitCode = error.exitCode;
  } else if (error instanceof ConfigError) {
    console.error(`Configuration error: ${error.message}`);
    process.exitCode = 78;
  } else {
    console.error('reset-admin failed:', error);
    process.exitCode = 1;
  }
});
