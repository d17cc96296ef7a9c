// The one catalog of error codes. Every problem the API answers with has a slug here; the
// error handler renders it as RFC 7807 problem+json, GET /errors/<slug> documents it.

export interface ErrorDefinition {
  status: number;
  title: string;
  description: string;
}

export const errorCatalog = {
  validation_failed: {
    status: 400,
    title: 'Validation failed',
    description:
      'One or more fields of the request failed validation; `errors` names each field and what is wrong with it.',
  },
  malformed_body: {
    status: 400,
    title: 'Malformed request body',
    description: 'The request body could not be parsed as the declared content type (for example invalid JSON).',
  },
  invalid_filter: {
    status: 400,
    title: 'Invalid filter',
    description:
      'A list filter or sort parameter is unknown, uses an operator the field does not support, or has a malformed value.',
  },
  read_only_field: {
    status: 400,
    title: 'Read-only field',
    description:
      'The body sets fields the client may not write (identifiers, timestamps, organization). They are refused, never silently applied.',
  },
  malformed_request: {
    status: 400,
    title: 'Malformed request',
    description: 'The request is not valid HTTP; the connection is closed.',
  },
  unauthenticated: {
    status: 401,
    title: 'Authentication required',
    description:
      'The request has no credentials, or they are not valid. Send `Authorization: Bearer <API key or token>`.',
  },
  invalid_credentials: {
    status: 401,
    title: 'Invalid credentials',
    description: 'The e-mail and password do not match an account allowed to log in.',
  },
  token_expired: {
    status: 401,
    title: 'Token expired',
    description: 'The bearer token has expired. Log in again (or start a new impersonation).',
  },
  invalid_mfa_code: {
    status: 401,
    title: 'Invalid MFA code',
    description: 'The one-time code is missing, wrong or expired; once MFA is enabled, the login needs it in `otp`.',
  },
  account_inactive: {
    status: 403,
    title: 'Account not active',
    description: 'The account is Inactive, Suspended or Pending verification and cannot log in.',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    description: 'The authenticated actor lacks the permission this operation needs.',
  },
  mfa_required: {
    status: 403,
    title: 'MFA required',
    description:
      'This operation is sensitive: verify a one-time code (POST /api/auth/mfa/verify) and use the token it returns.',
  },
  read_only_impersonation: {
    status: 403,
    title: 'Read-only impersonation',
    description:
      "A read-only impersonation session cannot change data. Start one with mode act_as_user to act on the user's behalf.",
  },
  cannot_modify_self: {
    status: 403,
    title: 'Cannot change your own access',
    description:
      'Users cannot change their own role or status (another administrator must), ' +
      'nor suspend the organization they act in.',
  },
  cannot_delete_self: {
    status: 403,
    title: 'Cannot delete own account',
    description: 'Users cannot delete their own account.',
  },
  organization_suspended: {
    status: 403,
    title: 'Organization suspended',
    description:
      'The organization this credential belongs to is suspended by the platform; its users and API keys are refused until a platform admin reactivates it.',
  },
  resource_locked: {
    status: 403,
    title: 'Resource locked',
    description:
      'You can see this library resource but not open it: its access level needs an active membership, a premium membership or a purchase (`accessLevel` says which).',
  },
  impersonation_forbidden: {
    status: 403,
    title: 'Impersonation not allowed',
    description:
      'Platform admins and users of equal or higher privilege than the administrator cannot be impersonated.',
  },
  invalid_connection: {
    status: 400,
    title: 'Invalid connection',
    description:
      'The SSO connection is unknown, disabled or cannot be used (its settings are incomplete, its certificate expired, its discovery document unreachable, or the identity service is not configured).',
  },
  sso_login_failed: {
    status: 401,
    title: 'SSO login failed',
    description:
      "The identity provider's answer was refused: a wrong, expired or reused state or code, a signature, audience, recipient or validity check that failed, a replayed assertion, or an e-mail outside the organization's domains.",
  },
  sso_required: {
    status: 403,
    title: 'SSO required',
    description:
      'The organization requires single sign-on: sign in through `/auth/sso`. Only its break-glass administrator may use a password.',
  },
  managed_by_directory: {
    status: 409,
    title: 'Managed by a directory',
    description:
      "The user is provisioned by their organization's directory (SCIM): their name, e-mail and role are changed there, not here.",
  },
  crm_not_connected: {
    status: 409,
    title: 'CRM not connected',
    description:
      'The organization has no working HubSpot connection: connect it, or reconnect it when HubSpot refused its token (`status.connected` is false).',
  },
  crm_not_configured: {
    status: 503,
    title: 'CRM not configured',
    description:
      "This deployment has no HubSpot app for its environment (HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET, or the sandbox's).",
  },
  sso_domain_taken: {
    status: 409,
    title: 'Domain already claimed',
    description:
      "An e-mail domain routes to one organization's SSO connections only; another organization already claims it.",
  },
  not_found: {
    status: 404,
    title: 'Not found',
    description: 'No such record exists, or it belongs to another organization.',
  },
  route_not_found: {
    status: 404,
    title: 'Route not found',
    description: 'No operation exists at this path. See /api/openapi.yaml.',
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    description: 'The path exists but does not support this HTTP method; `Allow` lists the ones it does.',
  },
  not_acceptable: {
    status: 406,
    title: 'Not acceptable',
    description: 'The operation cannot answer in any media type named by the Accept header.',
  },
  conflict: {
    status: 409,
    title: 'Conflict',
    description: 'The request conflicts with the current state of the record.',
  },
  already_exists: {
    status: 409,
    title: 'Already exists',
    description: 'A record with the same unique value already exists.',
  },
  email_taken: {
    status: 409,
    title: 'E-mail already in use',
    description: 'E-mail addresses are unique across the platform (case-insensitive).',
  },
  already_impersonating: {
    status: 409,
    title: 'Already impersonating',
    description: 'An impersonation cannot be started from within an impersonation session. End it first.',
  },
  not_impersonating: {
    status: 409,
    title: 'Not impersonating',
    description: 'There is no active impersonation session for this token.',
  },
  source_not_ingested: {
    status: 409,
    title: 'Source not ingested yet',
    description:
      'Podcasts and infographics are made from the text ingestion extracts from a resource; this one has none. The detail says why: its ingestion has not finished (try again later), the resource is a draft (publish it), ingestion found no text or does not read the format (upload a version with text), or ingestion failed (with its reason).',
  },
  retryable_conflict: {
    status: 409,
    title: 'Concurrent update',
    description: 'The change collided with a concurrent one. It was not applied; retry the request.',
  },
  mfa_already_enabled: {
    status: 409,
    title: 'MFA already enabled',
    description: 'Multi-factor authentication is already active for this account.',
  },
  tus_version_unsupported: {
    status: 412,
    title: 'Tus-Resumable required',
    description:
      'Resumable uploads speak tus 1.0.0: every request but OPTIONS sends `Tus-Resumable: 1.0.0`; `Tus-Version` lists the versions the server speaks.',
  },
  request_timeout: {
    status: 408,
    title: 'Request timeout',
    description: 'The request (its headers or its body) did not arrive in time; the connection is closed.',
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    description: 'The request body exceeds the size allowed for this operation.',
  },
  range_not_satisfiable: {
    status: 416,
    title: 'Range not satisfiable',
    description: 'The requested byte range lies outside the file; `Content-Range: bytes */<size>` gives its size.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    description:
      "The request body is not in a media type this operation accepts (usually application/json). Library uploads: the file's content is not an accepted format, or its name's extension names another one; `detectedType` says what was found.",
  },
  unprocessable: {
    status: 422,
    title: 'Unprocessable request',
    description: 'The request is well-formed but cannot be carried out as asked.',
  },
  source_too_long: {
    status: 422,
    title: 'Source too long for generation',
    description:
      'Podcasts and infographics are generated from documents under GENERATION_MAX_PAGES pages (50 by default); `pages` and `maxPages` say by how much this one is over.',
  },
  confirmation_required: {
    status: 422,
    title: 'Confirmation required',
    description: 'The change raises privileges or is irreversible; repeat it with the confirmation field set.',
  },
  idempotency_key_reused: {
    status: 422,
    title: 'Idempotency key reused',
    description: 'The Idempotency-Key was already used with a different request body.',
  },
  unsafe_webhook_target: {
    status: 422,
    title: 'Unsafe webhook target',
    description:
      'Webhook URLs must use https and must not resolve to loopback, private, link-local or metadata addresses.',
  },
  invalid_reset_token: {
    status: 422,
    title: 'Invalid reset token',
    description: 'The password reset token is unknown, already used or expired.',
  },
  idempotency_in_progress: {
    status: 409,
    title: 'Request in progress',
    description: 'A request with this Idempotency-Key is still being processed.',
  },
  headers_too_large: {
    status: 431,
    title: 'Request headers too large',
    description: 'The request line or headers exceed 16 KB; the connection is closed.',
  },
  rate_limited: {
    status: 429,
    title: 'Rate limit exceeded',
    description:
      'The organization used its hourly request quota for its plan. Retry after the number of seconds in `Retry-After`.',
  },
  login_throttled: {
    status: 429,
    title: 'Too many failed logins',
    description: 'Too many failed login attempts for this account; retry after the number of seconds in `Retry-After`.',
  },
  impersonation_limit: {
    status: 429,
    title: 'Impersonation limit reached',
    description: 'An administrator may start at most 10 impersonation sessions per hour.',
  },
  internal_error: {
    status: 500,
    title: 'Internal server error',
    description: 'An unexpected error occurred. It has been logged with the request id; nothing was half-written.',
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    description: 'A dependency (database, queue) is not available; retry later.',
  },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof errorCatalog;

export interface FieldError {
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  readonly title: string;
  constructor(
    readonly code: ErrorCode,
    detail?: string,
    readonly extras: { errors?: FieldError[]; headers?: Record<string, string>; [key: string]: unknown } = {},
    options?: { cause?: unknown },
  ) {
    super(detail ?? errorCatalog[code].title, options);
    this.status = errorCatalog[code].status;
    this.title = errorCatalog[code].title;
  }
}

/** "2 field(s) failed validation: page, email": each field once, however many rules it broke. */
const failedFieldsDetail = (fieldErrors: readonly FieldError[]) => {
  const fields = [...new Set(fieldErrors.map((e) => e.field))];
  return `${fields.length} field(s) failed validation: ${fields.join(', ')}`;
};

/** Named factories: call sites say what went wrong, the catalog says how it looks on the wire. */
export const errors = {
  validation: (fieldErrors: FieldError[]) =>
    new AppError('validation_failed', failedFieldsDetail(fieldErrors), { errors: fieldErrors }),
  invalidFilter: (parameter: string, message: string) =>
    new AppError('invalid_filter', `Query parameter "${parameter}" ${message}`, {
      errors: [{ field: parameter, message }],
    }),
  readOnly: (fields: string[]) =>
    new AppError('read_only_field', `These fields are read-only: ${fields.join(', ')}`, {
      errors: fields.map((field) => ({ field, message: 'is read-only' })),
    }),
  unauthenticated: (detail = 'Missing or invalid bearer credentials') => new AppError('unauthenticated', detail),
  forbidden: (detail = 'You do not have permission to perform this operation') => new AppError('forbidden', detail),
  notFound: (resource: string, id?: string) =>
    new AppError('not_found', id === undefined ? `${resource} not found` : `${resource} ${id} not found`),
  conflict: (detail: string) => new AppError('conflict', detail),
  unprocessable: (detail: string) => new AppError('unprocessable', detail),
  tooManyRequests: (
    code: 'rate_limited' | 'login_throttled' | 'impersonation_limit',
    retryAfterSeconds: number,
    detail?: string,
  ) => new AppError(code, detail, { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) } }),
};
