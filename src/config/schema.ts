// From the variables (src/config/variables.ts) to the Config the code reads: the rules between
// variables, the defaults that depend on other settings, and the shape. Config and its parts are
// the output type of this schema, so the shape is written here once and nowhere else.
import * as z from 'zod';
import { canonicalUrl } from './kinds.ts';
import { variables, type Variables } from './variables.ts';

export function appSecretRequired(because: string): string {
  return (
    `APP_SECRET is required when ${because}: it seals stored secrets (webhook signing secrets, TOTP seeds) ` +
    'and signs tokens, so every instance and every restart must share it. Generate one with\n' +
    `  node -e "console.log(require('node:crypto').randomBytes(32).toString('base64url'))"\n` +
    'and set APP_SECRET to that value in the environment of every instance. Only the embedded database ' +
    '(no DATABASE_URL) outside production generates its own, kept in DATA_DIR.'
  );
}

/** The prefix of an API key of the environment a deployment serves (`APP_ENV`). */
export const apiKeyPrefix = (appEnv: 'production' | 'sandbox') => (appEnv === 'sandbox' ? 'gh_test_' : 'gh_live_');

/** A rule between variables: `problem` names what is wrong with them together, if anything. */
function rule(reads: readonly (keyof Variables)[], problem: (v: Variables) => string | undefined) {
  return z.superRefine<Variables>(
    (v, ctx) => {
      const message = problem(v);
      if (message !== undefined) ctx.issues.push({ code: 'custom', message, input: v });
    },
    {
      // A verdict on variables that are wrong on their own would mean nothing; the rule still runs when
      // OTHER variables are wrong, so that one start reports every problem at once.
      when: (payload) => !payload.issues.some((issue) => reads.includes(issue.path?.[0] as keyof Variables)),
    },
  );
}

function isLoopback(url: string): boolean {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname);
}

function headersTimeoutMs(v: Variables): number {
  return v.HTTP_HEADERS_TIMEOUT_MS ?? v.HTTP_KEEP_ALIVE_TIMEOUT_MS + 1_000;
}

const rules = [
  rule(['APP_SECRET', 'DATABASE_URL', 'NODE_ENV'], (v) => {
    if (v.APP_SECRET !== undefined) return undefined;
    // A per-process secret would seal webhook secrets and TOTP seeds that no restart or other instance can open.
    if (v.DATABASE_URL !== undefined) return appSecretRequired('DATABASE_URL is set');
    if (v.NODE_ENV === 'production') return appSecretRequired('NODE_ENV=production');
    return undefined;
  }),
  // Without SMTP every e-mail, generated passwords and password links included, would wait in the
  // outbox table instead of reaching its recipient.
  rule(['NODE_ENV', 'SMTP_URL'], (v) =>
    v.NODE_ENV === 'production' && v.SMTP_URL === undefined
      ? 'SMTP_URL is required when NODE_ENV=production (without it e-mails would stay in the outbox)'
      : undefined,
  ),
  rule(['NODE_ENV', 'IDENTITY_SERVICE_API_URL'], (v) =>
    v.NODE_ENV === 'production' && !v.IDENTITY_SERVICE_API_URL.startsWith('https:')
      ? 'IDENTITY_SERVICE_API_URL must be https when NODE_ENV=production (the API key travels with every call)'
      : undefined,
  ),
  // loopback never leaves the machine (a local stand-in, a sidecar proxy)
  rule(['NODE_ENV', 'HUBSPOT_API_URL'], (v) =>
    v.NODE_ENV === 'production' && !v.HUBSPOT_API_URL.startsWith('https:') && !isLoopback(v.HUBSPOT_API_URL)
      ? 'HUBSPOT_API_URL must be https (or loopback) when NODE_ENV=production (tokens travel with every call)'
      : undefined,
  ),
  // a key under the other environment's prefix would be stored, then refused by every request
  rule(['DEMO_API_KEY', 'APP_ENV'], (v) => {
    const prefix = apiKeyPrefix(v.APP_ENV);
    return v.DEMO_API_KEY !== undefined && !v.DEMO_API_KEY.startsWith(prefix)
      ? `DEMO_API_KEY must start with ${prefix} when APP_ENV=${v.APP_ENV} (the environment's keys)`
      : undefined;
  }),
  rule(['HUBSPOT_CLIENT_ID', 'HUBSPOT_CLIENT_SECRET'], (v) =>
    (v.HUBSPOT_CLIENT_ID === undefined) !== (v.HUBSPOT_CLIENT_SECRET === undefined)
      ? 'HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET go together'
      : undefined,
  ),
  rule(['HUBSPOT_SANDBOX_CLIENT_ID', 'HUBSPOT_SANDBOX_CLIENT_SECRET'], (v) =>
    (v.HUBSPOT_SANDBOX_CLIENT_ID === undefined) !== (v.HUBSPOT_SANDBOX_CLIENT_SECRET === undefined)
      ? 'HUBSPOT_SANDBOX_CLIENT_ID and HUBSPOT_SANDBOX_CLIENT_SECRET go together'
      : undefined,
  ),
  rule(['SSO_SAML_SP_PRIVATE_KEY', 'SSO_SAML_SP_CERTIFICATE'], (v) =>
    (v.SSO_SAML_SP_PRIVATE_KEY === undefined) !== (v.SSO_SAML_SP_CERTIFICATE === undefined)
      ? 'SSO_SAML_SP_PRIVATE_KEY and SSO_SAML_SP_CERTIFICATE go together'
      : undefined,
  ),
  // the SSRF guard's development switch must never reach production
  rule(['NODE_ENV', 'WEBHOOKS_ALLOW_PRIVATE_TARGETS'], (v) =>
    v.NODE_ENV === 'production' && v.WEBHOOKS_ALLOW_PRIVATE_TARGETS
      ? 'WEBHOOKS_ALLOW_PRIVATE_TARGETS cannot be true when NODE_ENV=production'
      : undefined,
  ),
  // Node refuses a headers timeout longer than the request timeout (0: no request timeout)
  rule(['HTTP_KEEP_ALIVE_TIMEOUT_MS', 'HTTP_HEADERS_TIMEOUT_MS', 'HTTP_REQUEST_TIMEOUT_MS'], (v) => {
    const headers = headersTimeoutMs(v);
    const request = v.HTTP_REQUEST_TIMEOUT_MS;
    if (request === 0 || headers <= request) return undefined;
    return `HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS (${headers} > ${request})`;
  }),
  rule(['CHAT_PROVIDER', 'OPENAI_CHAT_URL'], (v) =>
    v.CHAT_PROVIDER === 'openai' && v.OPENAI_CHAT_URL === undefined
      ? 'OPENAI_CHAT_URL is required when CHAT_PROVIDER=openai'
      : undefined,
  ),
  rule(['EMBEDDINGS_PROVIDER', 'EMBEDDINGS_URL'], (v) =>
    v.EMBEDDINGS_PROVIDER === 'openai' && v.EMBEDDINGS_URL === undefined
      ? 'EMBEDDINGS_URL is required when EMBEDDINGS_PROVIDER=openai'
      : undefined,
  ),
];

type Flat<T> = { [K in keyof T]: T[K] } & {};
/** Properties that may be undefined become optional ones (`databaseUrl?: string`), as callers know them. */
type Optionals<T> = Flat<
  { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
    [K in keyof T as undefined extends T[K] ? K : never]?: T[K];
  }
>;

// Only the type changes: the object keeps its undefined properties, as loadConfig always returned them.
function settings<T extends object>(values: T): Optionals<T> {
  return values as Optionals<T>;
}

function crmApp(clientId: string | undefined, clientSecret: string | undefined) {
  return clientId && clientSecret ? { clientId, clientSecret } : null;
}

function toConfig(v: Variables) {
  const baseUrl = v.BASE_URL ?? canonicalUrl(`http://localhost:${v.PORT}`);
  const portal = (configured: string | undefined, path: string) => configured ?? canonicalUrl(`${baseUrl}${path}`);
  return settings({
    nodeEnv: v.NODE_ENV,
    appEnv: v.APP_ENV,
    port: v.PORT,
    host: v.HOST,
    baseUrl,
    databaseUrl: v.DATABASE_URL,
    databasePreparedStatements: v.DATABASE_PREPARED_STATEMENTS,
    dataDir: v.DATA_DIR,
    appSecret: v.APP_SECRET,
    redisUrl: v.REDIS_URL,
    redisKeyPrefix: v.REDIS_KEY_PREFIX,
    smtpUrl: v.SMTP_URL,
    mailFrom: v.MAIL_FROM,
    // any pino level name, as createLogger takes it
    logLevel: v.LOG_LEVEL as string,
    jwtTtlSeconds: v.JWT_TTL_SECONDS,
    rateLimits: {
      standard: v.RATE_LIMIT_STANDARD,
      professional: v.RATE_LIMIT_PROFESSIONAL,
      enterprise: v.RATE_LIMIT_ENTERPRISE,
    },
    scim: { rateLimitPerMinute: v.SCIM_RATE_LIMIT_PER_MINUTE },
    loginThrottle: { maxFailures: v.LOGIN_MAX_FAILURES, windowSeconds: v.LOGIN_THROTTLE_SECONDS },
    jobs: { enabled: v.JOBS_ENABLED, pollingIntervalSeconds: v.JOBS_POLLING_SECONDS },
    webhooks: {
      allowPrivateTargets: v.WEBHOOKS_ALLOW_PRIVATE_TARGETS,
      timeoutMs: v.WEBHOOKS_TIMEOUT_MS,
      retryDelaysSeconds: v.WEBHOOKS_RETRY_DELAYS,
      concurrency: v.WEBHOOKS_CONCURRENCY,
      pollIntervalMs: v.WEBHOOKS_POLL_MS,
      breakerThreshold: v.WEBHOOKS_BREAKER_THRESHOLD,
      breakerCooldownSeconds: v.WEBHOOKS_BREAKER_COOLDOWN_SECONDS,
    },
    impersonation: {
      ttlSeconds: v.IMPERSONATION_TTL_SECONDS,
      maxPerHour: v.IMPERSONATION_MAX_PER_HOUR,
      notifyTarget: v.IMPERSONATION_NOTIFY_TARGET,
    },
    sso: settings({
      identityServiceUrl: v.IDENTITY_SERVICE_API_URL,
      spSigning:
        v.SSO_SAML_SP_PRIVATE_KEY && v.SSO_SAML_SP_CERTIFICATE
          ? {
              privateKey: v.SSO_SAML_SP_PRIVATE_KEY.replaceAll('\\n', '\n'),
              certificate: v.SSO_SAML_SP_CERTIFICATE.replaceAll('\\n', '\n'),
            }
          : null,
    }),
    crm: {
      apiUrl: v.HUBSPOT_API_URL,
      timeoutMs: v.HUBSPOT_TIMEOUT_MS,
      authorizeUrl: v.HUBSPOT_AUTHORIZE_URL,
      // the app of the environment this deployment serves; null: connecting is refused with a clear error
      app: crmApp(
        v.APP_ENV === 'sandbox' ? v.HUBSPOT_SANDBOX_CLIENT_ID : v.HUBSPOT_CLIENT_ID,
        v.APP_ENV === 'sandbox' ? v.HUBSPOT_SANDBOX_CLIENT_SECRET : v.HUBSPOT_CLIENT_SECRET,
      ),
      burstLimit: v.CRM_BURST_LIMIT,
      dailyLimit: v.CRM_DAILY_LIMIT,
    },
    portals: {
      member: portal(v.MEMBER_PORTAL_URL, '/portal/member'),
      client: portal(v.CLIENT_PORTAL_URL, '/portal/client'),
      sponsor: portal(v.SPONSOR_PORTAL_URL, '/portal/sponsor'),
      admin: portal(v.ADMIN_PORTAL_URL, '/admin'),
    },
    demo: settings({ adminEmail: v.DEMO_ADMIN_EMAIL, adminPassword: v.DEMO_ADMIN_PASSWORD, apiKey: v.DEMO_API_KEY }),
    validateResponses: v.VALIDATE_RESPONSES ?? v.NODE_ENV === 'test',
    adminJsTmpDir: v.ADMIN_JS_TMP_DIR,
    passwords: { resetTtlSeconds: v.PASSWORD_RESET_TTL_SECONDS, setupTtlSeconds: v.PASSWORD_SETUP_TTL_SECONDS },
    mail: { retryLimit: v.MAIL_RETRY_LIMIT, retryDelaySeconds: v.MAIL_RETRY_DELAY_SECONDS },
    adminPortal: {
      sessionTtlSeconds: v.ADMIN_SESSION_TTL_SECONDS,
      // Secure cookies need https; a plain-http development address would never get its cookie back.
      secureCookies: v.ADMIN_SECURE_COOKIES ?? baseUrl.startsWith('https:'),
    },
    domainEvents: { retentionDays: v.DOMAIN_EVENTS_RETENTION_DAYS },
    pipelines: { retentionDays: v.PIPELINE_RUNS_RETENTION_DAYS },
    http: {
      trustProxy: v.TRUST_PROXY,
      keepAliveTimeoutMs: v.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      headersTimeoutMs: headersTimeoutMs(v),
      requestTimeoutMs: v.HTTP_REQUEST_TIMEOUT_MS,
      bodyTimeoutMs: v.HTTP_BODY_TIMEOUT_MS,
    },
    library: settings({
      maxFileBytes: v.LIBRARY_MAX_FILE_BYTES,
      localRoot: v.LIBRARY_STORAGE_DIR ?? `${v.DATA_DIR}/files`,
      s3: v.S3_BUCKET === undefined ? undefined : s3Settings(v, v.S3_BUCKET),
      uploadExpiryHours: v.LIBRARY_UPLOAD_EXPIRY_HOURS,
      uploadsDir: v.LIBRARY_UPLOADS_DIR ?? `${v.DATA_DIR}/uploads`,
      uploadCorsOrigins: v.LIBRARY_UPLOAD_CORS_ORIGINS,
      tempMaxAgeMinutes: v.LIBRARY_TEMP_MAX_AGE_MINUTES,
      publicRequestsPerHour: v.LIBRARY_PUBLIC_REQUESTS_PER_HOUR,
    }),
    ai: settings({
      anthropic: v.ANTHROPIC_API_KEY === undefined ? undefined : anthropicSettings(v, v.ANTHROPIC_API_KEY),
      openaiChat: v.CHAT_PROVIDER === 'openai' ? openaiChatSettings(v) : undefined,
      embeddings: embeddingSettings(v),
      generationMaxPages: v.GENERATION_MAX_PAGES,
      ffmpegPath: v.FFMPEG_PATH,
      libreOfficePath: v.LIBREOFFICE_PATH,
      ocr: { enabled: v.OCR_ENABLED },
    }),
  });
}

function s3Settings(v: Variables, bucket: string) {
  return settings({
    bucket,
    endpoint: v.S3_ENDPOINT,
    region: v.S3_REGION,
    accessKeyId: v.S3_ACCESS_KEY_ID,
    secretAccessKey: v.S3_SECRET_ACCESS_KEY,
    // MinIO and most self-hosted S3 servers address buckets by path, AWS by host name
    forcePathStyle: v.S3_FORCE_PATH_STYLE ?? v.S3_ENDPOINT !== undefined,
  });
}

function anthropicSettings(v: Variables, apiKey: string) {
  return settings({
    apiKey,
    baseUrl: v.ANTHROPIC_BASE_URL,
    model: v.ANTHROPIC_MODEL,
    timeoutMs: v.ANTHROPIC_TIMEOUT_MS,
  });
}

function openaiChatSettings(v: Variables) {
  // present: the CHAT_PROVIDER=openai rule above refuses the configuration without it
  return settings({
    baseUrl: v.OPENAI_CHAT_URL!,
    apiKey: v.OPENAI_CHAT_API_KEY,
    model: v.OPENAI_CHAT_MODEL,
    timeoutMs: v.OPENAI_CHAT_TIMEOUT_MS,
  });
}

function embeddingSettings(v: Variables) {
  if (v.EMBEDDINGS_PROVIDER === 'use-lite') return { provider: v.EMBEDDINGS_PROVIDER };
  // present: the EMBEDDINGS_PROVIDER=openai rule above refuses the configuration without it
  const url = v.EMBEDDINGS_URL!;
  return settings({ provider: v.EMBEDDINGS_PROVIDER, url, apiKey: v.EMBEDDINGS_API_KEY, model: v.EMBEDDINGS_MODEL });
}

/** The environment, variable by variable, to the Config; every problem is one zod issue. */
export const configSchema = variables.check(...rules).transform(toConfig);
