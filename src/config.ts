// The only reader of process.env. Parsed once at start-up; a bad value stops the process
// with a message naming the variable, instead of failing later in some request.
import { DEFAULT_RETRY_DELAYS_SECONDS } from './modules/webhooks/webhook.retry-schedule.ts';

export type AppEnv = 'production' | 'sandbox';
export type Plan = 'standard' | 'professional' | 'enterprise';

export interface Config {
  nodeEnv: 'development' | 'test' | 'production';
  appEnv: AppEnv;
  port: number;
  host: string;
  /** Public addresses of both environments; `type` URIs of problems use the production one. */
  baseUrl: string;
  sandboxUrl: string;
  databaseUrl?: string;
  /** Hot lookups by id are prepared by name on a PostgreSQL server (shared/sql.ts); off for a pooler that cannot keep them. */
  databasePreparedStatements: boolean;
  dataDir: string;
  appSecret?: string;
  redisUrl?: string;
  /** Prefix of every Redis key, so deployments (and parallel test runs) can share one Redis. */
  redisKeyPrefix: string;
  smtpUrl?: string;
  mailFrom: string;
  logLevel: string;
  jwtTtlSeconds: number;
  rateLimits: Record<Plan, number>;
  loginThrottle: { maxFailures: number; windowSeconds: number };
  jobs: { enabled: boolean; pollingIntervalSeconds: number };
  webhooks: {
    allowPrivateTargets: boolean;
    timeoutMs: number;
    retryDelaysSeconds: number[];
    concurrency: number;
    pollIntervalMs: number;
    breakerThreshold: number;
    breakerCooldownSeconds: number;
  };
  impersonation: { ttlSeconds: number; maxPerHour: number; notifyTarget: boolean };
  portals: { member: string; client: string; sponsor: string; admin: string };
  demo: { adminEmail?: string; adminPassword?: string; apiKey?: string };
  validateResponses: boolean;
  adminJsTmpDir: string;
  passwords: { resetTtlSeconds: number; setupTtlSeconds: number };
  mail: { retryLimit: number; retryDelaySeconds: number };
  adminPortal: { sessionTtlSeconds: number; secureCookies: boolean };
  // domain events and pipelines (events-jobs)
  domainEvents: { retentionDays: number };
  pipelines: { retentionDays: number };
  http: HttpSettings;
  library: LibrarySettings;
  ai: AiSettings;
}

/** The resource library: sizes, storage, resumable uploads. */
export interface LibrarySettings {
  /** Largest file accepted (500 MiB by default); a bigger upload is cut off with 413 and nothing is kept. */
  maxFileBytes: number;
  /** Local storage root (DATA_DIR/files) when S3 is not configured. */
  localRoot: string;
  /** S3-compatible object storage, when S3_BUCKET is set. */
  s3?: { bucket: string; endpoint?: string; region: string; accessKeyId?: string; secretAccessKey?: string; forcePathStyle: boolean };
  /** Unfinished resumable (tus) uploads expire after this long and are removed by a job. */
  uploadExpiryHours: number;
  /** Where unfinished resumable (tus) uploads collect their bytes (DATA_DIR/uploads); finished ones move to storage. */
  uploadsDir: string;
  /** Browser origins that may upload straight to /api/uploads (CORS); none by default. */
  uploadCorsOrigins: string[];
  /** Temporary storage keys older than this are leftovers of a crash; the sweeper removes them. */
  tempMaxAgeMinutes: number;
  /** Requests per hour one IP address may make to the anonymous public catalogue (/api/public/...). */
  publicRequestsPerHour: number;
}

/** Claude, embeddings and generated media. */
export interface AiSettings {
  anthropic?: { apiKey: string; baseUrl?: string; model: string; timeoutMs: number };
  embeddings: { provider: 'use-lite' } | { provider: 'openai'; url: string; apiKey?: string; model: string };
  /** Podcasts and infographics are generated only from sources under this many pages (else 422). */
  generationMaxPages: number;
  /** ffmpeg binary; the one bundled by @ffmpeg-installer/ffmpeg when unset. */
  ffmpegPath?: string;
  /** LibreOffice's `soffice` (Word page numbers from a PDF rendering); looked up on PATH when unset. */
  libreOfficePath?: string;
}

/** The listening server and the proxy in front of it (surfaces work). */
export interface HttpSettings {
  /** Express's `trust proxy`: false, true, a hop count, or comma-separated addresses, CIDRs and names (loopback, linklocal, uniquelocal). */
  trustProxy: boolean | number | string[];
  /** Above the idle timeout of the load balancer in front (60 s for AWS ALB, GCP, nginx defaults), so it never reuses a socket we are closing. */
  keepAliveTimeoutMs: number;
  /** Time to receive a request's headers; above keepAliveTimeoutMs. */
  headersTimeoutMs: number;
  /** Outer bound for receiving a whole request, uploads included (Node's requestTimeout). */
  requestTimeoutMs: number;
  /** Time to receive a body on the JSON, SCIM, SSO and inbound webhook surfaces (a trickled body is cut at it). */
  bodyTimeoutMs: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback?: string): string {
  const value = env[name]?.trim();
  if (value) return value;
  if (fallback !== undefined) return fallback;
  throw new ConfigError(`${name} is required`);
}

function optional(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function num(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a number between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = (env[name]?.trim() || fallback) as T;
  if (!allowed.includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw;
}

function url(env: Env, name: string, fallback?: string): string {
  const value = str(env, name, fallback);
  try {
    return new URL(value).toString().replace(/\/$/, '');
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${value}"`);
  }
}

function optionalUrl(env: Env, name: string): string | undefined {
  return optional(env, name) === undefined ? undefined : url(env, name);
}

/** Comma-separated delays in seconds between attempts, e.g. "5,300,1800". */
function delays(env: Env, name: string, fallback: readonly number[]): number[] {
  const raw = env[name]?.trim();
  if (!raw) return [...fallback];
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (values.length > 30 || values.some((v) => !Number.isInteger(v) || v < 1 || v > 7 * 86400)) {
    throw new ConfigError(`${name} must be up to 30 comma-separated whole seconds between 1 and 604800, got "${raw}"`);
  }
  return values;
}

/** Comma-separated web origins (`https://portal.example.org`, no path), as a browser sends them in `Origin`. */
function origins(env: Env, name: string): string[] {
  const entries = (env[name] ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
  for (const entry of entries) {
    let origin: string | undefined;
    try {
      origin = new URL(entry).origin;
    } catch {
      origin = undefined;
    }
    if (origin !== entry) throw new ConfigError(`${name} must list origins such as https://portal.example.org (scheme, host, port; no path), got "${entry}"`);
  }
  return entries;
}

function demoApiKey(env: Env): string | undefined {
  const value = optional(env, 'DEMO_API_KEY');
  if (value !== undefined && !/^gh_(live|test)_[A-Za-z0-9_-]{16,}$/.test(value)) {
    throw new ConfigError('DEMO_API_KEY must look like gh_live_<at least 16 letters, digits, - or _>');
  }
  return value;
}

/** TRUST_PROXY: "true"/"false", a hop count, or a comma-separated list of addresses, CIDRs and the names loopback, linklocal, uniquelocal. */
function trustProxy(env: Env): HttpSettings['trustProxy'] {
  const raw = env.TRUST_PROXY?.trim();
  if (!raw) return ['loopback'];
  if (/^(true|false)$/i.test(raw)) return raw.toLowerCase() === 'true';
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim()).filter(Boolean);
  const valid = /^(loopback|linklocal|uniquelocal|[0-9a-f:.]+(\/\d{1,3})?)$/i;
  const wrong = entries.find((entry) => !valid.test(entry));
  if (wrong !== undefined) throw new ConfigError(`TRUST_PROXY must be true, false, a hop count or addresses/CIDRs/loopback/linklocal/uniquelocal, got "${wrong}"`);
  return entries;
}

function httpSettings(env: Env): HttpSettings {
  const keepAliveTimeoutMs = int(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 65_000, 1_000, 600_000);
  const headersTimeoutMs = int(env, 'HTTP_HEADERS_TIMEOUT_MS', keepAliveTimeoutMs + 1_000, 1_000, 600_000);
  const requestTimeoutMs = int(env, 'HTTP_REQUEST_TIMEOUT_MS', 900_000, 0, 3_600_000);
  // Node refuses a headers timeout longer than the request timeout
  if (requestTimeoutMs > 0 && headersTimeoutMs > requestTimeoutMs) throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS');
  return {
    trustProxy: trustProxy(env),
    keepAliveTimeoutMs,
    headersTimeoutMs,
    requestTimeoutMs,
    bodyTimeoutMs: int(env, 'HTTP_BODY_TIMEOUT_MS', 30_000, 100, 600_000),
  };
}

export function appSecretRequired(because: string): string {
  return (
    `APP_SECRET is required when ${because}: it seals stored secrets (webhook signing secrets, TOTP seeds) ` +
    'and signs tokens, so every instance and every restart must share it. Generate one with\n' +
    `  node -e "console.log(require('node:crypto').randomBytes(32).toString('base64url'))"\n` +
    'and set APP_SECRET to that value in the environment of every instance. Only the embedded database ' +
    '(no DATABASE_URL) generates its own, kept in DATA_DIR.'
  );
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'test', 'production'] as const, 'development');
  const port = int(env, 'PORT', 3000, 0, 65535);
  const baseUrl = url(env, 'BASE_URL', `http://localhost:${port}`);
  const appSecret = optional(env, 'APP_SECRET');
  if (appSecret !== undefined && appSecret.length < 32) throw new ConfigError('APP_SECRET must be at least 32 characters');
  // A per-process secret would seal webhook secrets and TOTP seeds that no restart or other instance can open.
  if (!appSecret && optional(env, 'DATABASE_URL')) throw new ConfigError(appSecretRequired('DATABASE_URL is set'));
  if (!appSecret && nodeEnv === 'production') throw new ConfigError(appSecretRequired('NODE_ENV=production'));
  // Production safety: without SMTP every e-mail, generated passwords and password links included,
  // would wait in the outbox table instead of reaching its recipient.
  if (nodeEnv === 'production' && !optional(env, 'SMTP_URL')) throw new ConfigError('SMTP_URL is required when NODE_ENV=production (without it e-mails would stay in the outbox)');
  const allowPrivateTargets = bool(env, 'WEBHOOKS_ALLOW_PRIVATE_TARGETS', false);
  // the SSRF guard's development switch must never reach production
  if (nodeEnv === 'production' && allowPrivateTargets) throw new ConfigError('WEBHOOKS_ALLOW_PRIVATE_TARGETS cannot be true when NODE_ENV=production');
  return {
    nodeEnv,
    appEnv: oneOf(env, 'APP_ENV', ['production', 'sandbox'] as const, 'production'),
    port,
    host: str(env, 'HOST', '0.0.0.0'),
    baseUrl,
    sandboxUrl: url(env, 'SANDBOX_URL', baseUrl),
    databaseUrl: optionalUrl(env, 'DATABASE_URL'),
    databasePreparedStatements: bool(env, 'DATABASE_PREPARED_STATEMENTS', true),
    dataDir: str(env, 'DATA_DIR', './data'),
    appSecret,
    redisUrl: optionalUrl(env, 'REDIS_URL'),
    redisKeyPrefix: str(env, 'REDIS_KEY_PREFIX', 'guildhall:'),
    smtpUrl: optionalUrl(env, 'SMTP_URL'),
    mailFrom: str(env, 'MAIL_FROM', 'Guildhall <no-reply@guildhall.local>'),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    jwtTtlSeconds: int(env, 'JWT_TTL_SECONDS', 3600, 60, 86400),
    rateLimits: {
      standard: int(env, 'RATE_LIMIT_STANDARD', 1000, 1),
      professional: int(env, 'RATE_LIMIT_PROFESSIONAL', 5000, 1),
      enterprise: int(env, 'RATE_LIMIT_ENTERPRISE', 25000, 1),
    },
    loginThrottle: {
      maxFailures: int(env, 'LOGIN_MAX_FAILURES', 5, 1),
      windowSeconds: int(env, 'LOGIN_THROTTLE_SECONDS', 900, 1),
    },
    jobs: {
      enabled: bool(env, 'JOBS_ENABLED', true),
      pollingIntervalSeconds: num(env, 'JOBS_POLLING_SECONDS', 2, 0.5, 60),
    },
    webhooks: {
      allowPrivateTargets,
      timeoutMs: int(env, 'WEBHOOKS_TIMEOUT_MS', 5000, 100, 60000),
      retryDelaysSeconds: delays(env, 'WEBHOOKS_RETRY_DELAYS', DEFAULT_RETRY_DELAYS_SECONDS),
      concurrency: int(env, 'WEBHOOKS_CONCURRENCY', 64, 1, 1024),
      pollIntervalMs: int(env, 'WEBHOOKS_POLL_MS', 500, 10, 60000),
      breakerThreshold: int(env, 'WEBHOOKS_BREAKER_THRESHOLD', 5, 1, 1000),
      breakerCooldownSeconds: int(env, 'WEBHOOKS_BREAKER_COOLDOWN_SECONDS', 60, 1, 86400),
    },
    impersonation: {
      ttlSeconds: int(env, 'IMPERSONATION_TTL_SECONDS', 900, 60, 3600),
      maxPerHour: int(env, 'IMPERSONATION_MAX_PER_HOUR', 10, 1),
      notifyTarget: bool(env, 'IMPERSONATION_NOTIFY_TARGET', true),
    },
    portals: {
      member: url(env, 'MEMBER_PORTAL_URL', `${baseUrl}/portal/member`),
      client: url(env, 'CLIENT_PORTAL_URL', `${baseUrl}/portal/client`),
      sponsor: url(env, 'SPONSOR_PORTAL_URL', `${baseUrl}/portal/sponsor`),
      admin: url(env, 'ADMIN_PORTAL_URL', `${baseUrl}/admin`),
    },
    demo: {
      adminEmail: optional(env, 'DEMO_ADMIN_EMAIL'),
      adminPassword: optional(env, 'DEMO_ADMIN_PASSWORD'),
      apiKey: demoApiKey(env),
    },
    validateResponses: bool(env, 'VALIDATE_RESPONSES', nodeEnv === 'test'),
    adminJsTmpDir: str(env, 'ADMIN_JS_TMP_DIR', './data/adminjs-tmp'),
    passwords: {
      resetTtlSeconds: int(env, 'PASSWORD_RESET_TTL_SECONDS', 3600, 300, 86400),
      setupTtlSeconds: int(env, 'PASSWORD_SETUP_TTL_SECONDS', 259200, 3600, 30 * 86400),
    },
    mail: {
      retryLimit: int(env, 'MAIL_RETRY_LIMIT', 5, 0, 50),
      retryDelaySeconds: int(env, 'MAIL_RETRY_DELAY_SECONDS', 30, 1, 3600),
    },
    adminPortal: {
      sessionTtlSeconds: int(env, 'ADMIN_SESSION_TTL_SECONDS', 8 * 3600, 300, 7 * 86400),
      // Secure cookies need https; a plain-http development address would never get its cookie back.
      secureCookies: bool(env, 'ADMIN_SECURE_COOKIES', baseUrl.startsWith('https:')),
    },
    // domain events and pipelines (events-jobs)
    domainEvents: { retentionDays: int(env, 'DOMAIN_EVENTS_RETENTION_DAYS', 30, 1, 3650) },
    pipelines: { retentionDays: int(env, 'PIPELINE_RUNS_RETENTION_DAYS', 30, 1, 3650) },
    http: httpSettings(env),
    library: librarySettings(env, str(env, 'DATA_DIR', './data')),
    ai: aiSettings(env),
  };
}

function librarySettings(env: Env, dataDir: string): LibrarySettings {
  const bucket = optional(env, 'S3_BUCKET');
  return {
    maxFileBytes: int(env, 'LIBRARY_MAX_FILE_BYTES', 500 * 1024 * 1024, 1024, 5 * 1024 ** 3),
    localRoot: str(env, 'LIBRARY_STORAGE_DIR', `${dataDir}/files`),
    s3: bucket
      ? {
          bucket,
          endpoint: optionalUrl(env, 'S3_ENDPOINT'),
          region: str(env, 'S3_REGION', 'us-east-1'),
          accessKeyId: optional(env, 'S3_ACCESS_KEY_ID'),
          secretAccessKey: optional(env, 'S3_SECRET_ACCESS_KEY'),
          // MinIO and most self-hosted S3 servers address buckets by path, AWS by host name
          forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', optional(env, 'S3_ENDPOINT') !== undefined),
        }
      : undefined,
    uploadExpiryHours: int(env, 'LIBRARY_UPLOAD_EXPIRY_HOURS', 24, 1, 24 * 30),
    uploadsDir: str(env, 'LIBRARY_UPLOADS_DIR', `${dataDir}/uploads`),
    uploadCorsOrigins: origins(env, 'LIBRARY_UPLOAD_CORS_ORIGINS'),
    tempMaxAgeMinutes: int(env, 'LIBRARY_TEMP_MAX_AGE_MINUTES', 60, 1, 7 * 24 * 60),
    publicRequestsPerHour: int(env, 'LIBRARY_PUBLIC_REQUESTS_PER_HOUR', 600, 1, 1_000_000),
  };
}

function aiSettings(env: Env): AiSettings {
  const apiKey = optional(env, 'ANTHROPIC_API_KEY');
  const provider = oneOf(env, 'EMBEDDINGS_PROVIDER', ['use-lite', 'openai'] as const, 'use-lite');
  return {
    anthropic: apiKey
      ? {
          apiKey,
          baseUrl: optionalUrl(env, 'ANTHROPIC_BASE_URL'),
          model: str(env, 'ANTHROPIC_MODEL', 'claude-sonnet-4-5'),
          timeoutMs: int(env, 'ANTHROPIC_TIMEOUT_MS', 30_000, 1000, 600_000),
        }
      : undefined,
    embeddings:
      provider === 'openai'
        ? { provider, url: url(env, 'EMBEDDINGS_URL'), apiKey: optional(env, 'EMBEDDINGS_API_KEY'), model: str(env, 'EMBEDDINGS_MODEL', 'text-embedding-3-small') }
        : { provider },
    generationMaxPages: int(env, 'GENERATION_MAX_PAGES', 50, 1, 10_000),
    ffmpegPath: optional(env, 'FFMPEG_PATH'),
    libreOfficePath: optional(env, 'LIBREOFFICE_PATH'),
  };
}
