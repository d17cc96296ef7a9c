// Every environment variable the service reads, once: its kind, its default and its description.
// The README's configuration table and .env.example are generated from these (npm run config:docs),
// and src/config/schema.ts turns the parsed variables into the Config the code uses.
import * as z from 'zod';
import { DEFAULT_RETRY_DELAYS_SECONDS } from '../modules/webhooks/webhook.retry-schedule.ts';
import {
  absoluteUrl,
  choice,
  decimal,
  delays,
  described,
  flag,
  integer,
  pattern,
  secret,
  text,
  trustProxy,
} from './kinds.ts';
import { library, media } from './variables-library.ts';

const server = {
  NODE_ENV: described(
    choice(['development', 'test', 'production']).prefault('development'),
    'How this process runs: development conveniences (demo data on a first start) or production safeguards ' +
      '(APP_SECRET and SMTP_URL required, private webhook targets refused).',
  ),
  APP_ENV: described(
    choice(['production', 'sandbox']).prefault('production'),
    'Which API environment this deployment serves: live data and gh_live_ API keys, or the sandbox and gh_test_ keys.',
  ),
  PORT: described(integer(0, 65535).prefault('3000'), 'Port the HTTP server listens on (0: any free port).'),
  HOST: described(text('address').prefault('0.0.0.0'), 'Address the HTTP server listens on.'),
  BASE_URL: described(
    absoluteUrl().optional(),
    'Public address of this deployment; problem `type` URIs are `$BASE_URL/errors/<code>`.',
    { computedDefault: '`http://localhost:$PORT`' },
  ),
  LOG_LEVEL: described(
    choice(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).prefault('info'),
    'Lowest level the (pino) log writes.',
  ),
  VALIDATE_RESPONSES: described(
    flag().optional(),
    'Validate every response against `openapi.yaml` (a drift becomes a 500).',
    { computedDefault: 'true when NODE_ENV=test, else false' },
  ),
};

const storage = {
  DATABASE_URL: described(
    absoluteUrl().optional(),
    'PostgreSQL server; unset, the service starts embedded PGlite (with pgvector) in DATA_DIR.',
    { example: 'postgres://postgres@127.0.0.1:5432/guildhall' },
  ),
  DATABASE_PREPARED_STATEMENTS: described(
    flag().prefault('true'),
    "On a PostgreSQL server the hottest lookups (a record by id, the library's access checks) are prepared " +
      'once per pooled connection and run by name; false behind a pooler in transaction mode that cannot keep ' +
      'prepared statements (PgBouncer before 1.21). Never used on embedded PGlite.',
  ),
  DATA_DIR: described(
    text('path').prefault('./data'),
    'The embedded database, its generated APP_SECRET and, unless set apart, library files and unfinished uploads.',
  ),
  APP_SECRET: described(
    secret(32).optional(),
    'Signs tokens and seals stored secrets (webhook signing secrets, TOTP seeds): every instance and every ' +
      'restart must share it. Required with DATABASE_URL and when NODE_ENV=production. Generate one with ' +
      `\`node -e "console.log(require('node:crypto').randomBytes(32).toString('base64url'))"\`.`,
    { computedDefault: 'with embedded PGlite only: generated once into `$DATA_DIR/app-secret`' },
  ),
  REDIS_URL: described(absoluteUrl().optional(), 'Keep rate-limit counters in Redis instead of PostgreSQL.', {
    example: 'redis://127.0.0.1:6379',
  }),
  REDIS_KEY_PREFIX: described(
    text().prefault('guildhall:'),
    'Prefix of every Redis key, so deployments (and parallel test runs) can share one Redis.',
  ),
};

const mail = {
  SMTP_URL: described(
    absoluteUrl().optional(),
    'Outgoing mail (a nodemailer URL; `smtps://` for implicit TLS). Required when NODE_ENV=production; unset, ' +
      'every e-mail waits in the outbox table.',
    { example: 'smtp://user:pass@smtp.example.com:587' },
  ),
  MAIL_FROM: described(text('address').prefault('Guildhall <no-reply@guildhall.local>'), 'Sender of every e-mail.'),
  MAIL_RETRY_LIMIT: described(integer(0, 50).prefault('5'), 'Retries of the `mail.send` job.'),
  MAIL_RETRY_DELAY_SECONDS: described(
    integer(1, 3600).prefault('30'),
    'Delay before the first retry of the `mail.send` job; it doubles with each retry.',
  ),
};

const http = {
  TRUST_PROXY: described(
    trustProxy().prefault('loopback'),
    "Whose X-Forwarded-* headers to believe (Express's trust proxy setting).",
  ),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: described(
    integer(1_000, 600_000).prefault('65000'),
    'Idle keep-alive timeout; above the idle timeout of the load balancer in front (60 s for AWS ALB, GCP, nginx), ' +
      'so it never reuses a socket the service is closing.',
  ),
  HTTP_HEADERS_TIMEOUT_MS: described(
    integer(1_000, 600_000).optional(),
    "Time to receive a request's headers; above the keep-alive timeout, at most HTTP_REQUEST_TIMEOUT_MS.",
    { computedDefault: 'HTTP_KEEP_ALIVE_TIMEOUT_MS + 1000' },
  ),
  HTTP_REQUEST_TIMEOUT_MS: described(
    integer(0, 3_600_000).prefault('900000'),
    "Outer bound for receiving a whole request, uploads included (Node's requestTimeout; 0: none).",
  ),
  HTTP_BODY_TIMEOUT_MS: described(
    integer(100, 600_000).prefault('30000'),
    'Time to receive a body on the JSON, SCIM, SSO and inbound-webhook surfaces (a trickled body is cut off, 408).',
  ),
};

const access = {
  JWT_TTL_SECONDS: described(integer(60, 86_400).prefault('3600'), 'Lifetime of login tokens.'),
  LOGIN_MAX_FAILURES: described(
    integer(1).prefault('5'),
    'Failed logins allowed per e-mail address within LOGIN_THROTTLE_SECONDS.',
  ),
  LOGIN_THROTTLE_SECONDS: described(integer(1).prefault('900'), 'Window of the failed-login throttle.'),
  PASSWORD_RESET_TTL_SECONDS: described(integer(300, 86_400).prefault('3600'), 'Lifetime of a password-reset link.'),
  PASSWORD_SETUP_TTL_SECONDS: described(
    integer(3_600, 30 * 86_400).prefault('259200'),
    'Lifetime of the welcome e-mail\'s "choose your password" link.',
  ),
  RATE_LIMIT_STANDARD: described(
    integer(1).prefault('1000'),
    'Requests per hour for an organization on the standard plan.',
  ),
  RATE_LIMIT_PROFESSIONAL: described(
    integer(1).prefault('5000'),
    'Requests per hour for an organization on the professional plan.',
  ),
  RATE_LIMIT_ENTERPRISE: described(
    integer(1).prefault('25000'),
    'Requests per hour for an organization on the enterprise plan.',
  ),
  SCIM_RATE_LIMIT_PER_MINUTE: described(
    integer(1).prefault('1800'),
    "SCIM requests per minute for one directory, apart from its organization's plan limit (exact across " +
      'instances; 429 with Retry-After). Microsoft asks SCIM endpoints to take 25 requests per second per ' +
      'provisioning job (1500 a minute); 1800 leaves headroom, so an initial Entra ID sync of 10,000 users ' +
      '(a userName lookup and a POST each, about 20,000 requests) runs in about 11 minutes without stalling.',
  ),
};

const jobs = {
  JOBS_ENABLED: described(
    flag().prefault('true'),
    'Run jobs (and the webhook dispatcher) in this process; false when a separate `npm run worker` runs them.',
  ),
  JOBS_POLLING_SECONDS: described(decimal(0.5, 60).prefault('2'), 'How often an idle job worker looks for work.'),
  DOMAIN_EVENTS_RETENTION_DAYS: described(
    integer(1, 3650).prefault('30'),
    'Age after which domain events (with their receipts) are purged.',
  ),
  PIPELINE_RUNS_RETENTION_DAYS: described(
    integer(1, 3650).prefault('30'),
    'Age after which finished pipeline runs are purged.',
  ),
};

const webhooks = {
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: described(
    flag().prefault('false'),
    'Allow http and loopback or private webhook URLs: development and tests only, refused when NODE_ENV=production.',
  ),
  WEBHOOKS_TIMEOUT_MS: described(
    integer(100, 60_000).prefault('5000'),
    'How long a webhook attempt may take before it counts as failed.',
  ),
  WEBHOOKS_RETRY_DELAYS: described(
    delays().prefault(DEFAULT_RETRY_DELAYS_SECONDS.join(',')),
    'Seconds between webhook attempts (±10% jitter); after the last one the delivery fails.',
  ),
  WEBHOOKS_CONCURRENCY: described(integer(1, 1024).prefault('64'), 'Webhook deliveries in flight per process.'),
  WEBHOOKS_POLL_MS: described(
    integer(10, 60_000).prefault('500'),
    'How often an idle webhook dispatcher looks for due deliveries.',
  ),
  WEBHOOKS_BREAKER_THRESHOLD: described(
    integer(1, 1000).prefault('5'),
    "Failed deliveries in a row that open an endpoint's circuit.",
  ),
  WEBHOOKS_BREAKER_COOLDOWN_SECONDS: described(
    integer(1, 86_400).prefault('60'),
    "How long an endpoint's open circuit stays open.",
  ),
};

const impersonation = {
  IMPERSONATION_TTL_SECONDS: described(
    integer(60, 3600).prefault('900'),
    'Lifetime of an impersonation session (support staff acting as a user).',
  ),
  IMPERSONATION_MAX_PER_HOUR: described(
    integer(1).prefault('10'),
    'Impersonation sessions one platform admin may start per hour.',
  ),
  IMPERSONATION_NOTIFY_TARGET: described(
    flag().prefault('true'),
    'E-mail the impersonated user when an impersonation session starts.',
  ),
};

function portal(name: string, path: string) {
  return described(
    absoluteUrl().optional(),
    `The ${name}: where e-mailed links and impersonation lead its users (Guildhall serves minimal pages there ` +
      'by default).',
    { computedDefault: `\`$BASE_URL${path}\`` },
  );
}

const sso = {
  IDENTITY_SERVICE_API_URL: described(
    absoluteUrl().prefault('https://api.workos.com'),
    "The identity service's API (WorkOS's; its key, client ID and secrets are platform settings in the Admin " +
      'Portal). https in production.',
  ),
  SSO_SAML_SP_PRIVATE_KEY: described(
    text('PEM').optional(),
    'Our SAML signing key (PEM, newlines as \\n): with SSO_SAML_SP_CERTIFICATE, AuthnRequests and SP metadata are ' +
      'signed. Unset: requests go unsigned (IdPs accept that by default).',
  ),
  SSO_SAML_SP_CERTIFICATE: described(text('PEM').optional(), 'The certificate of SSO_SAML_SP_PRIVATE_KEY (PEM).'),
};

// HubSpot's OAuth app: one for live data, one for the sandbox (APP_ENV picks), as HubSpot's own
// test accounts are separate portals with their own app installs.
const crm = {
  HUBSPOT_API_URL: described(
    absoluteUrl().prefault('https://api.hubapi.com'),
    "HubSpot's API (the CRM): the OAuth token exchange and the CRM objects. https in production.",
  ),
  HUBSPOT_TIMEOUT_MS: described(
    integer(100, 600_000).prefault('30000'),
    'How long a HubSpot call may take before it fails (a sync run is then retried later; a diagnostic answers 503).',
  ),
  HUBSPOT_AUTHORIZE_URL: described(
    absoluteUrl().prefault('https://app.hubspot.com/oauth/authorize'),
    "HubSpot's authorization page, where a client admin approves the connection.",
  ),
  HUBSPOT_CLIENT_ID: described(text('client ID').optional(), "The HubSpot app's client ID (APP_ENV=production)."),
  HUBSPOT_CLIENT_SECRET: described(text('secret').optional(), "The HubSpot app's client secret (APP_ENV=production)."),
  HUBSPOT_SANDBOX_CLIENT_ID: described(
    text('client ID').optional(),
    "The sandbox's HubSpot app client ID (APP_ENV=sandbox): test portals connect to a separate app.",
  ),
  HUBSPOT_SANDBOX_CLIENT_SECRET: described(
    text('secret').optional(),
    "The sandbox's HubSpot app client secret (APP_ENV=sandbox).",
  ),
  CRM_BURST_LIMIT: described(
    integer(1, 10_000).prefault('100'),
    "Calls to one HubSpot portal in any rolling 10 seconds (HubSpot's burst limit for OAuth apps is 110; we keep " +
      'a margin). Shared by every instance.',
  ),
  CRM_DAILY_LIMIT: described(
    integer(1).prefault('250000'),
    "Guildhall's daily call budget per HubSpot portal (HubSpot's daily limit of its lowest paid tiers).",
  ),
};

const portals = {
  MEMBER_PORTAL_URL: portal('member portal', '/portal/member'),
  CLIENT_PORTAL_URL: portal('client portal', '/portal/client'),
  SPONSOR_PORTAL_URL: portal('sponsor portal', '/portal/sponsor'),
  ADMIN_PORTAL_URL: portal('Admin Portal', '/admin'),
};

const admin = {
  ADMIN_JS_TMP_DIR: described(
    text('path').prefault('./data/adminjs-tmp'),
    'Where AdminJS bundles its custom components (not a dot-folder: Express 5 does not serve those); the Docker ' +
      'image ships a prebuilt bundle (`ADMIN_JS_SKIP_BUNDLE=true`).',
  ),
  ADMIN_SESSION_TTL_SECONDS: described(
    integer(300, 7 * 86_400).prefault('28800'),
    'Admin Portal session lifetime (renewed on use).',
  ),
  ADMIN_SECURE_COOKIES: described(
    flag().optional(),
    "Mark the Admin Portal's session cookie Secure (https only: a plain-http address would never get it back).",
    { computedDefault: 'true when BASE_URL is https' },
  ),
};

const demo = {
  DEMO_ADMIN_EMAIL: described(
    text('e-mail address').optional(),
    'Demo platform admin, created on a first development start or by `npm run seed:demo` (never by a ' +
      'production start).',
    { computedDefault: '`admin@guildhall.local`' },
  ),
  DEMO_ADMIN_PASSWORD: described(text('password').optional(), 'Password of the demo admins.', {
    computedDefault: 'random, printed at seeding',
  }),
  DEMO_API_KEY: described(
    pattern(
      /^gh_(live|test)_[A-Za-z0-9_-]{16,}$/,
      'gh_live_… or gh_test_…',
      'must look like gh_live_<at least 16 letters, digits, - or _>',
    ).optional(),
    "The demo organization's API key, with the deployment's prefix (gh_test_ when APP_ENV=sandbox).",
    { computedDefault: 'random, printed at seeding' },
  ),
};

/** The variables by topic, in the order the generated docs list them. */
export const groups = {
  Server: server,
  'Database, secrets and Redis': storage,
  Mail: mail,
  'HTTP server': http,
  'Sign-in, passwords and rate limits': access,
  'Jobs and retention': jobs,
  Webhooks: webhooks,
  Impersonation: impersonation,
  'Single sign-on': sso,
  'CRM (HubSpot)': crm,
  Portals: portals,
  'Admin Portal': admin,
  'Demo data': demo,
  Library: library,
  'AI and media': media,
};

export const variables = z.object({
  ...server,
  ...storage,
  ...mail,
  ...http,
  ...access,
  ...jobs,
  ...webhooks,
  ...impersonation,
  ...sso,
  ...crm,
  ...portals,
  ...admin,
  ...demo,
  ...library,
  ...media,
});

export type Variables = z.output<typeof variables>;
