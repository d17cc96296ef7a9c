// What the Admin Portal shows of each model it exposes, resource by resource. A model not named here
// is not in the portal at all; a column not named is never sent to the browser. Left out on purpose:
// password tokens, API key hashes, webhook signing secrets (sealed or not), webhook event payloads
// (member data), mail bodies (generated passwords, password links), pg-boss job data; and members,
// events and courses, which the client portals serve.
export const PORTAL_PROPERTIES = {
  // served by OrganizationService (not the model adapter): with its status and counts
  organizations: ['id', 'name', 'slug', 'plan', 'environment', 'createdAt', 'updatedAt', 'status', 'suspendedAt', 'userCount', 'memberCount', 'apiKeyCount'],
  api_keys: ['id', 'name', 'prefix', 'organizationId', 'createdByUserId', 'createdAt', 'lastUsedAt', 'revokedAt'],
  // before/after are the API's wire shapes of the changed record (never secrets): the point of an audit trail
  // ...and the names of the users and organizations referenced, computed per page (AUDIT_NAMES)
  audit_log: ['id', 'occurredAt', 'organizationId', 'actorType', 'actorId', 'impersonatorId', 'action', 'targetType', 'targetId', 'before', 'after', 'requestId', 'actorName', 'impersonatorName', 'targetName', 'organizationName'],
  // ...with the names, duration and number of actions computed per page (SESSION_FIGURES)
  impersonation_sessions: ['id', 'adminId', 'targetUserId', 'mode', 'reason', 'startedAt', 'expiresAt', 'endedAt', 'endReason', 'adminName', 'targetUserName', 'duration', 'actionCount'],
  impersonation_requests: ['id', 'sessionId', 'adminId', 'targetUserId', 'method', 'path', 'statusCode', 'requestId', 'occurredAt'],
  // redactedText, never textBody/htmlBody
  mail_outbox: ['id', 'createdAt', 'template', 'toAddress', 'userId', 'subject', 'redactedText', 'status', 'attempts', 'lastError', 'sentAt'],
  webhook_subscriptions: ['id', 'organizationId', 'url', 'description', 'eventTypes', 'status', 'disabledReason', 'createdAt', 'updatedAt'],
  // not eventId: it references webhook_events, which stay out (their payloads carry member data)
  webhook_deliveries: ['id', 'organizationId', 'subscriptionId', 'status', 'attemptCount', 'nextAttemptAt', 'lastAttemptAt', 'lastStatusCode', 'lastError', 'createdAt'],
  // `output` holds the last error of a failed attempt; `data` (a job's input) stays out
  jobs: ['id', 'name', 'state', 'output', 'retryCount', 'retryLimit', 'createdOn', 'startedOn', 'completedOn'],
  // the library, read-only (deletion goes through ResourceService): storage keys, price and the
  // uploader stay out; description and file contents are the organization's
  library_resources: ['id', 'organizationId', 'name', 'type', 'format', 'accessLevel', 'status', 'publishedAt', 'tags', 'currentVersion', 'viewCount', 'downloadCount', 'createdAt', 'updatedAt'],
  library_versions: ['id', 'organizationId', 'resourceId', 'version', 'fileName', 'contentType', 'format', 'sizeBytes', 'sha256', 'createdAt'],
  library_categories: ['id', 'organizationId', 'name', 'description', 'icon', 'position', 'archivedAt', 'createdAt', 'updatedAt'],
  // computed per organization by LibraryStorageResource
  library_storage: ['id', 'organizationName', 'resources', 'versions', 'storageUsed', 'storageBytes'],
} as const satisfies Record<string, readonly string[]>;
