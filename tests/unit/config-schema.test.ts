// The configuration schema (src/config/): every problem of a start in one error, the defaults and the
// rules between variables as they have always been, and the generated docs covering every variable.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import type * as z from 'zod';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { variableEntries } from '../../src/config/docs.ts';
import { variables } from '../../src/config/variables.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SECRET = 's'.repeat(32);
const PRODUCTION = { NODE_ENV: 'production', APP_SECRET: SECRET, SMTP_URL: 'smtp://mail.example.test' };

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.problems;
  }
  return assert.fail('the configuration was accepted');
}

describe('the configuration schema', () => {
  it('when several variables are wrong, then one error names every one of them', () => {
    const env = {
      PORT: 'eighty',
      JOBS_ENABLED: 'maybe',
      TRUST_PROXY: 'everyone',
      LIBRARY_UPLOAD_CORS_ORIGINS: 'https://ok.example, https://portal.example/path',
      WEBHOOKS_RETRY_DELAYS: '5,0',
    };
    assert.throws(
      () => loadConfig(env),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems, [
          'PORT must be an integer between 0 and 65535, got "eighty"',
          'TRUST_PROXY must be true, false, a hop count or addresses/CIDRs/loopback/linklocal/uniquelocal, ' +
            'got "everyone"',
          'JOBS_ENABLED must be true or false, got "maybe"',
          'WEBHOOKS_RETRY_DELAYS must be up to 30 comma-separated whole seconds between 1 and 604800, got "5,0"',
          'LIBRARY_UPLOAD_CORS_ORIGINS must list origins such as https://portal.example.org (scheme, host, port; ' +
            'no path), got "https://portal.example/path"',
        ]);
        // one a line, so that each reads after the entry point's "Configuration error: " prefix
        assert.equal(error.message, error.problems.join('\n'));
        return true;
      },
    );
  });

  it('when variables are wrong and a rule between others is broken too, then both kinds are reported', () => {
    const problems = problemsOf({ NODE_ENV: 'production', APP_SECRET: SECRET, PORT: '-1', MAIL_RETRY_LIMIT: '51' });
    assert.deepEqual(problems, [
      'PORT must be an integer between 0 and 65535, got "-1"',
      'MAIL_RETRY_LIMIT must be an integer between 0 and 50, got "51"',
      'SMTP_URL is required when NODE_ENV=production (without it e-mails would stay in the outbox)',
    ]);
  });

  it('when nothing is set, then the defaults apply, those derived from other settings included', () => {
    const config = loadConfig({});
    assert.equal(config.nodeEnv, 'development');
    assert.equal(config.appEnv, 'production');
    assert.equal(config.port, 3000);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.baseUrl, 'http://localhost:3000');
    assert.equal(config.logLevel, 'info');
    assert.equal(config.validateResponses, false);
    assert.equal(config.databasePreparedStatements, true);
    assert.equal(config.mailFrom, 'Guildhall <no-reply@guildhall.local>');
    assert.deepEqual(config.rateLimits, { standard: 1000, professional: 5000, enterprise: 25000 });
    assert.deepEqual(config.portals, {
      member: 'http://localhost:3000/portal/member',
      client: 'http://localhost:3000/portal/client',
      sponsor: 'http://localhost:3000/portal/sponsor',
      admin: 'http://localhost:3000/admin',
    });
    assert.deepEqual(config.adminPortal, { sessionTtlSeconds: 28_800, secureCookies: false });
    assert.deepEqual(config.http, {
      trustProxy: ['loopback'],
      keepAliveTimeoutMs: 65_000,
      headersTimeoutMs: 66_000,
      requestTimeoutMs: 900_000,
      bodyTimeoutMs: 30_000,
    });
    assert.equal(config.library.maxFileBytes, 500 * 1024 * 1024);
    assert.equal(config.library.localRoot, './data/files');
    assert.equal(config.library.uploadsDir, './data/uploads');
    assert.deepEqual(config.library.uploadCorsOrigins, []);
    assert.equal(config.library.s3, undefined);
    assert.equal(config.ai.anthropic, undefined);
    assert.deepEqual(config.ai.embeddings, { provider: 'use-lite' });
    assert.equal(config.jobs.pollingIntervalSeconds, 2);
  });

  it('when the settings that others derive from are set, then the derived defaults follow them', () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      PORT: '8080',
      BASE_URL: 'https://guild.example/',
      DATA_DIR: '/srv/guild',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '75000',
      S3_BUCKET: 'files',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
    });
    assert.equal(config.baseUrl, 'https://guild.example');
    assert.equal(config.portals.member, 'https://guild.example/portal/member');
    assert.equal(config.adminPortal.secureCookies, true);
    assert.equal(config.validateResponses, true);
    assert.equal(config.http.headersTimeoutMs, 76_000);
    assert.equal(config.library.localRoot, '/srv/guild/files');
    assert.equal(config.library.uploadsDir, '/srv/guild/uploads');
    assert.deepEqual(config.library.s3, {
      bucket: 'files',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      accessKeyId: undefined,
      secretAccessKey: undefined,
      forcePathStyle: true,
    });
    assert.equal(loadConfig({ S3_BUCKET: 'files' }).library.s3?.forcePathStyle, false);
  });

  it('when a variable is blank, then it counts as unset, and values are read trimmed', () => {
    const config = loadConfig({ PORT: '   ', LOG_LEVEL: '', DATA_DIR: ' /srv/x ', JOBS_ENABLED: ' OFF ' });
    assert.equal(config.port, 3000);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.dataDir, '/srv/x');
    assert.equal(config.jobs.enabled, false);
  });

  it('when the headers timeout, set or derived, exceeds the request timeout, then the start is refused', () => {
    assert.deepEqual(problemsOf({ HTTP_REQUEST_TIMEOUT_MS: '60000' }), [
      'HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS (66000 > 60000)',
    ]);
    assert.deepEqual(problemsOf({ HTTP_HEADERS_TIMEOUT_MS: '80000', HTTP_REQUEST_TIMEOUT_MS: '70000' }), [
      'HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS (80000 > 70000)',
    ]);
    // 0 turns Node's request timeout off: nothing for the headers timeout to exceed
    assert.equal(loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '0' }).http.requestTimeoutMs, 0);
    const equal = loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '70000', HTTP_REQUEST_TIMEOUT_MS: '70000' });
    assert.equal(equal.http.headersTimeoutMs, 70_000);
  });

  it('when a variable of a rule is wrong on its own, then only that is reported, not the rule', () => {
    assert.deepEqual(problemsOf({ HTTP_REQUEST_TIMEOUT_MS: 'soon' }), [
      'HTTP_REQUEST_TIMEOUT_MS must be an integer between 0 and 3600000, got "soon"',
    ]);
  });

  it('when the OpenAI-compatible embedder has no address, then the start is refused', () => {
    assert.deepEqual(problemsOf({ EMBEDDINGS_PROVIDER: 'openai' }), [
      'EMBEDDINGS_URL is required when EMBEDDINGS_PROVIDER=openai',
    ]);
    const openai = loadConfig({ EMBEDDINGS_PROVIDER: 'openai', EMBEDDINGS_URL: 'https://api.example/v1/' });
    assert.deepEqual(openai.ai.embeddings, {
      provider: 'openai',
      url: 'https://api.example/v1',
      apiKey: undefined,
      model: 'text-embedding-3-small',
    });
  });
});

describe('production requirements', () => {
  it('when NODE_ENV=production has neither APP_SECRET nor SMTP_URL, then both are required in one error', () => {
    const problems = problemsOf({ NODE_ENV: 'production' });
    assert.equal(problems.length, 2);
    assert.match(problems[0], /^APP_SECRET is required when NODE_ENV=production/);
    assert.match(problems[1], /^SMTP_URL is required when NODE_ENV=production/);
  });

  it('when production has both, then it starts; a short secret or private webhook targets are refused', () => {
    assert.equal(loadConfig(PRODUCTION).smtpUrl, 'smtp://mail.example.test');
    assert.deepEqual(problemsOf({ ...PRODUCTION, APP_SECRET: 'short' }), ['APP_SECRET must be at least 32 characters']);
    assert.deepEqual(problemsOf({ ...PRODUCTION, WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'yes' }), [
      'WEBHOOKS_ALLOW_PRIVATE_TARGETS cannot be true when NODE_ENV=production',
    ]);
  });

  it('when a server database is configured without APP_SECRET, then the start is refused in any NODE_ENV', () => {
    for (const NODE_ENV of ['development', 'test']) {
      const problems = problemsOf({ NODE_ENV, DATABASE_URL: 'postgres://db.example/guild' });
      assert.equal(problems.length, 1);
      assert.match(problems[0], /^APP_SECRET is required when DATABASE_URL is set/);
    }
  });

  it("when DEMO_API_KEY has the other environment's prefix, then the start is refused", () => {
    assert.deepEqual(problemsOf({ DEMO_API_KEY: 'gh_test_demoKeyForScripts0123456789' }), [
      "DEMO_API_KEY must start with gh_live_ when APP_ENV=production (the environment's keys)",
    ]);
    assert.deepEqual(problemsOf({ APP_ENV: 'sandbox', DEMO_API_KEY: 'gh_live_demoKeyForScripts0123456789' }), [
      "DEMO_API_KEY must start with gh_test_ when APP_ENV=sandbox (the environment's keys)",
    ]);
    assert.doesNotThrow(() => loadConfig({ APP_ENV: 'sandbox', DEMO_API_KEY: 'gh_test_demoKeyForScripts0123456789' }));
  });

  it('when the deployment serves the sandbox, then the CRM uses the sandbox HubSpot app; half an app is refused', () => {
    const apps = {
      HUBSPOT_CLIENT_ID: 'live-id',
      HUBSPOT_CLIENT_SECRET: 'live-secret',
      HUBSPOT_SANDBOX_CLIENT_ID: 'test-id',
      HUBSPOT_SANDBOX_CLIENT_SECRET: 'test-secret',
    };
    assert.deepEqual(loadConfig(apps).crm.app, { clientId: 'live-id', clientSecret: 'live-secret' });
    assert.deepEqual(loadConfig({ ...apps, APP_ENV: 'sandbox' }).crm.app, {
      clientId: 'test-id',
      clientSecret: 'test-secret',
    });
    assert.equal(
      loadConfig({ APP_ENV: 'sandbox', HUBSPOT_CLIENT_ID: 'live-id', HUBSPOT_CLIENT_SECRET: 'x' }).crm.app,
      null,
    );
    assert.deepEqual(problemsOf({ HUBSPOT_CLIENT_ID: 'live-id' }), [
      'HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET go together',
    ]);
    assert.deepEqual(problemsOf({ ...PRODUCTION, HUBSPOT_API_URL: 'http://hubspot.example.test' }), [
      'HUBSPOT_API_URL must be https (or loopback) when NODE_ENV=production (tokens travel with every call)',
    ]);
    assert.equal(
      loadConfig({ ...PRODUCTION, HUBSPOT_API_URL: 'http://127.0.0.1:9000' }).crm.apiUrl,
      'http://127.0.0.1:9000',
    );
  });

  it('when an entry point meets a bad configuration, then it exits with 78 (EX_CONFIG), listing all', async () => {
    // the worker imports nothing heavy before its configuration; a directory without a .env of its own
    const cwd = await mkdtemp(path.join(tmpdir(), 'guildhall-config-'));
    try {
      const worker = path.join(root, 'src/worker.ts');
      const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), worker], {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_ENV: 'production', PORT: '80a' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      assert.equal(code, 78, output);
      assert.match(output, /^Configuration error: PORT must be an integer between 0 and 65535, got "80a"$/m);
      assert.match(output, /^APP_SECRET is required when NODE_ENV=production/m);
      assert.match(output, /^ {2}and set APP_SECRET to that value/m, 'the lines of one problem are indented');
      assert.match(output, /^SMTP_URL is required when NODE_ENV=production/m);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});

describe('the generated configuration docs', () => {
  it('when the docs are generated, then every variable the schema reads has a description and a format', () => {
    const entries = variableEntries();
    assert.deepEqual(entries.map((entry) => entry.name).sort(), Object.keys(variables.shape).sort());
    for (const entry of entries) {
      assert.ok(entry.description.length > 10, `${entry.name} has a description`);
      assert.ok(entry.format, `${entry.name} has a format`);
    }
    // read nowhere: removed (issue 23)
    assert.ok(!entries.some((entry) => entry.name === 'SANDBOX_URL'));
  });

  it('when every assignment of .env.example is uncommented, then its variable accepts each value shown', async () => {
    const example = await readFile(path.join(root, '.env.example'), 'utf8');
    const names = new Set(Object.keys(variables.shape));
    const assignments = example
      .split('\n')
      .map((line) => line.replace(/^# /, ''))
      .filter((line) => names.has(line.split('=')[0]));
    const shown = new Set(assignments.map((line) => line.split('=')[0]));
    assert.deepEqual(shown, names, 'every variable is in .env.example');
    // each on its own: together they would break a rule (DATABASE_URL's example without an APP_SECRET)
    const schemas: Record<string, z.ZodType> = variables.shape;
    for (const [name, value] of Object.entries(parseEnv(assignments.join('\n')))) {
      assert.ok(schemas[name].safeParse(value?.trim() || undefined).success, `${name}=${value}`);
    }
    const shownDefaults = parseEnv(assignments.join('\n'));
    assert.equal(shownDefaults.WEBHOOKS_TIMEOUT_MS, String(loadConfig({}).webhooks.timeoutMs));
    assert.equal(shownDefaults.MAIL_FROM, loadConfig({}).mailFrom);
  });
});
