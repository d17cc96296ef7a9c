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
  dataDir: string;
  appSecret?: string;
  redisUrl?: string;
  smtpUrl?: string;
  mailFrom: string;
  logLevel: string;
  jwtTtlSeconds: number;
  rateLimits: Record<Plan, number>;
  loginThrottle: { maxFailures: number; windowSeconds: number };
  jobs: { enabled: boolean; pollingIntervalSeconds: number };
  webhooks: { allowPrivateTargets: boolean; timeoutMs: number; retryDelaysSeconds: number[] };
  impersonation: { ttlSeconds: number; maxPerHour: number; notifyTarget: boolean };
  portals: { member: string; client: string; sponsor: string; admin: string };
  demo: { adminEmail?: string; adminPassword?: string; apiKey?: string };
  validateResponses: boolean;
  adminJsTmpDir: string;
  passwords: { resetTtlSeconds: number; setupTtlSeconds: number };
  mail: { retryLimit: number; retryDelaySeconds: number };
  adminPortal: { sessionTtlSeconds: number; secureCookies: boolean };
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

function demoApiKey(env: Env): string | undefined {
  const value = optional(env, 'DEMO_API_KEY');
  if (value !== undefined && !/^gh_(live|test)_[A-Za-z0-9_-]{16,}$/.test(value)) {
    throw new ConfigError('DEMO_API_KEY must look like gh_live_<at least 16 letters, digits, - or _>');
  }
  return value;
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'test', 'production'] as const, 'development');
  const port = int(env, 'PORT', 3000, 0, 65535);
  const baseUrl = url(env, 'BASE_URL', `http://localhost:${port}`);
  const appSecret = optional(env, 'APP_SECRET');
  if (appSecret !== undefined && appSecret.length < 32) throw new ConfigError('APP_SECRET must be at least 32 characters');
  if (nodeEnv === 'production' && !appSecret) throw new ConfigError('APP_SECRET is required when NODE_ENV=production');
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
    dataDir: str(env, 'DATA_DIR', './data'),
    appSecret,
    redisUrl: optionalUrl(env, 'REDIS_URL'),
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
      timeoutMs: int(env, 'WEBHOOKS_TIMEOUT_MS', 10000, 100, 60000),
      retryDelaysSeconds: delays(env, 'WEBHOOKS_RETRY_DELAYS', DEFAULT_RETRY_DELAYS_SECONDS),
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
  };
}
