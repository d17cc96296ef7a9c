// The portal's other resources, read through the models, each with the properties PORTAL_PROPERTIES allows.
// Nothing here writes directly: the one action with a side effect (revoking an API key) calls the API's service.
import type { ActionContext, ActionRequest, ActionResponse, ResourceOptions, ResourceWithOptions } from 'adminjs';
import type { ModelStatic, Model } from 'sequelize';
import type { AppContext as Container } from '../../src/app-context.ts';
import { portalActor } from '../portal-actor.ts';
import { noticeOf } from '../portal-errors.ts';
import { AllowListedResource } from './allow-listed.resource.ts';
import { PORTAL_PROPERTIES } from './portal-properties.ts';
import { JobRecord } from './job-record.model.ts';
import { codeLabels, type PortalComponents } from '../components/index.ts';
import { AuditEntriesResource } from './audit-entries.resource.ts';
import { ImpersonationSessionsResource } from './impersonation-sessions.resource.ts';

/** List, show and filter only. */
const READ_ONLY: ResourceOptions['actions'] = {
  new: { isAccessible: false },
  edit: { isAccessible: false },
  delete: { isAccessible: false },
  bulkDelete: { isAccessible: false },
};

/**
 * Exposure is opt-in: a model appears in the portal only when listed below, and then only with the
 * properties it names (AllowListedResource enforces that in the portal's JSON API as well).
 */
const readOnly = (
  model: ModelStatic<Model> | AllowListedResource,
  properties: readonly string[],
  options: ResourceOptions = {},
): ResourceWithOptions => ({
  resource: model instanceof AllowListedResource ? model : new AllowListedResource(model, properties),
  options: {
    navigation: { name: 'Platform', icon: 'Database' },
    ...options,
    actions: { ...READ_ONLY, ...options.actions },
  },
});

export function platformResources(container: Container, components: PortalComponents): ResourceWithOptions[] {
  const { models, services } = container;
  const history = { name: 'History', icon: 'Clock' };
  const apiKeys = readOnly(models.ApiKey, PORTAL_PROPERTIES.api_keys, {
    listProperties: ['name', 'prefix', 'organizationId', 'createdAt', 'lastUsedAt', 'revokedAt'],
    properties: { createdByUserId: { type: 'reference', reference: 'users' } },
    actions: {
      revoke: {
        actionType: 'record',
        icon: 'XCircle',
        variant: 'danger',
        guard: 'Revoke this API key? It stops working at once.',
        // a page that asks and then POSTs: AdminJS would run a component-less action with a GET
        component: components.ConfirmAction,
        isAccessible: ({ record }) => !record?.params.revokedAt,
        handler: async (
          request: ActionRequest,
          _response: unknown,
          context: ActionContext,
        ): Promise<ActionResponse> => {
          const record = context.record!;
          if (request.method !== 'post') return { record: record.toJSON(context.currentAdmin) };
          try {
            // a platform admin acts inside the key's organization, as with the Guildhall-Organization header
            await services.apiKeys.revoke(
              await portalActor(context.currentAdmin, String(record.params.organizationId)),
              String(record.id()),
            );
            const fresh = await context.resource.findOne(String(record.id()), context);
            const redirectUrl = context.h.recordActionUrl({
              resourceId: 'api_keys',
              recordId: String(record.id()),
              actionName: 'show',
            });
            return {
              record: (fresh ?? record).toJSON(context.currentAdmin),
              redirectUrl,
              notice: { message: 'API key revoked', type: 'success' },
            };
          } catch (error) {
            return { record: record.toJSON(context.currentAdmin), notice: noticeOf(error) };
          }
        },
      },
    },
  });
  const webhooks = { name: 'Webhooks', icon: 'Send' };
  return [
    apiKeys,
    readOnly(
      new AuditEntriesResource(models.AuditEntry, PORTAL_PROPERTIES.audit_log, container.sql),
      PORTAL_PROPERTIES.audit_log,
      auditOptions(history, components),
    ),
    readOnly(
      new ImpersonationSessionsResource(
        models.ImpersonationSession,
        PORTAL_PROPERTIES.impersonation_sessions,
        container,
      ),
      PORTAL_PROPERTIES.impersonation_sessions,
      sessionOptions(history, components),
    ),
    readOnly(models.ImpersonationRequest, PORTAL_PROPERTIES.impersonation_requests, {
      navigation: history,
      sort: { sortBy: 'occurredAt', direction: 'desc' },
      listProperties: ['occurredAt', 'adminId', 'targetUserId', 'method', 'path', 'statusCode'],
      // names instead of ids, each linking to its record
      properties: {
        sessionId: { type: 'reference', reference: 'impersonation_sessions' },
        adminId: { type: 'reference', reference: 'users' },
        targetUserId: { type: 'reference', reference: 'users' },
      },
    }),
    readOnly(models.OutboxMessage, PORTAL_PROPERTIES.mail_outbox, {
      navigation: { name: 'Mail', icon: 'Mail' },
      titleProperty: 'subject',
      sort: { sortBy: 'createdAt', direction: 'desc' },
      listProperties: ['toAddress', 'subject', 'status', 'template', 'attempts', 'createdAt', 'sentAt'],
      // To, Subject and Status first, then the message as the recipient reads it (redacted)
      showProperties: [
        'toAddress',
        'subject',
        'status',
        'redactedText',
        'template',
        'userId',
        'attempts',
        'lastError',
        'createdAt',
        'sentAt',
      ],
      properties: {
        redactedText: { components: { show: components.MailPreview } },
        status: codeLabels(components),
        userId: { type: 'reference', reference: 'users' },
      },
    }),
    readOnly(models.WebhookSubscription, PORTAL_PROPERTIES.webhook_subscriptions, {
      navigation: webhooks,
      sort: { sortBy: 'createdAt', direction: 'desc' },
      listProperties: ['url', 'organizationId', 'eventTypes', 'status', 'createdAt'],
    }),
    readOnly(models.WebhookDelivery, PORTAL_PROPERTIES.webhook_deliveries, {
      navigation: webhooks,
      sort: { sortBy: 'createdAt', direction: 'desc' },
      listProperties: ['createdAt', 'subscriptionId', 'status', 'attemptCount', 'lastStatusCode', 'nextAttemptAt'],
    }),
    readOnly(JobRecord.initModel(container.db.sequelize), PORTAL_PROPERTIES.jobs, jobOptions(container, components)),
  ];
}

const hidden = { list: false, filter: false, show: false, edit: false };
const shown = (where: { list?: boolean; filter?: boolean; show?: boolean }) => ({ ...hidden, ...where });

/** Names and links for the ids, Before and After as JSON, filterable by user (the actor). */
function auditOptions(navigation: ResourceOptions['navigation'], components: PortalComponents): ResourceOptions {
  const link = { components: { list: components.RecordLink, show: components.RecordLink } };
  const code = codeLabels(components);
  return {
    navigation,
    titleProperty: 'action',
    sort: { sortBy: 'id', direction: 'desc' },
    listProperties: ['occurredAt', 'action', 'actorId', 'impersonatorId', 'organizationId', 'targetType', 'targetId'],
    showProperties: [
      'occurredAt',
      'action',
      'actorType',
      'actorId',
      'impersonatorId',
      'organizationId',
      'targetType',
      'targetId',
      'requestId',
      'before',
      'after',
    ],
    filterProperties: ['occurredAt', 'action', 'user', 'actorType', 'targetType', 'targetId', 'requestId'],
    properties: {
      action: code,
      actorType: code,
      targetType: code,
      actorId: { ...link },
      impersonatorId: { ...link },
      organizationId: { ...link },
      targetId: { ...link },
      before: { type: 'mixed', components: { show: components.JsonValue } },
      after: { type: 'mixed', components: { show: components.JsonValue } },
      // a filter only: entries this user made (AuditEntriesResource turns it into the actor id)
      user: { type: 'reference', reference: 'users', isVisible: shown({ filter: true }) },
    },
  };
}

/** The spec's session attributes: admin, target, start, end, duration, actions performed, mode. */
function sessionOptions(navigation: ResourceOptions['navigation'], components: PortalComponents): ResourceOptions {
  const link = { components: { list: components.RecordLink, show: components.RecordLink } };
  return {
    navigation,
    titleProperty: 'targetUserName',
    sort: { sortBy: 'startedAt', direction: 'desc' },
    listProperties: ['adminId', 'targetUserId', 'mode', 'startedAt', 'endedAt', 'duration', 'actionCount', 'endReason'],
    showProperties: [
      'adminId',
      'targetUserId',
      'mode',
      'reason',
      'startedAt',
      'expiresAt',
      'endedAt',
      'endReason',
      'duration',
      'actionCount',
    ],
    filterProperties: ['adminId', 'targetUserId', 'mode', 'startedAt', 'endedAt', 'endReason'],
    properties: {
      adminId: { ...link, type: 'reference', reference: 'users' },
      targetUserId: { ...link, type: 'reference', reference: 'users' },
      mode: codeLabels(components),
      endReason: codeLabels(components),
      duration: { type: 'string', isVisible: shown({ list: true, show: true }) },
      actionCount: { type: 'number', isVisible: shown({ list: true, show: true }) },
      targetUserName: { type: 'string', isVisible: hidden },
    },
  };
}

/** Jobs with state, attempts and last error; Retry and Cancel go through the jobs-admin service (audited). */
function jobOptions(container: Container, components: PortalComponents): ResourceOptions {
  const { jobs } = container.services;
  const command =
    (name: 'retry' | 'cancel', done: string) =>
    async (request: ActionRequest, _response: unknown, context: ActionContext): Promise<ActionResponse> => {
      const record = context.record!;
      if (request.method !== 'post') return { record: record.toJSON(context.currentAdmin) };
      try {
        const job = await jobs[name](await portalActor(context.currentAdmin), String(record.id()));
        const fresh = await context.resource.findOne(String(record.id()), context);
        const redirectUrl = context.h.recordActionUrl({
          resourceId: 'jobs',
          recordId: String(record.id()),
          actionName: 'show',
        });
        return {
          record: (fresh ?? record).toJSON(context.currentAdmin),
          redirectUrl,
          notice: { message: `Job ${job.name}: ${done}`, type: 'success' },
        };
      } catch (error) {
        return { record: record.toJSON(context.currentAdmin), notice: noticeOf(error) };
      }
    };
  return {
    id: 'jobs',
    navigation: { name: 'Jobs', icon: 'Activity' },
    titleProperty: 'name',
    sort: { sortBy: 'createdOn', direction: 'desc' },
    listProperties: ['name', 'state', 'retryCount', 'retryLimit', 'output', 'createdOn', 'completedOn'],
    showProperties: ['name', 'state', 'retryCount', 'retryLimit', 'createdOn', 'startedOn', 'completedOn', 'output'],
    filterProperties: ['name', 'state', 'createdOn'],
    properties: {
      output: { type: 'mixed', components: { list: components.JsonValue, show: components.JsonValue } },
    },
    actions: {
      retry: {
        actionType: 'record',
        icon: 'RotateCw',
        component: components.ConfirmAction,
        guard: 'Run this job again?',
        isAccessible: ({ record }) => record?.params.state === 'failed',
        handler: command('retry', 'queued to run again'),
      },
      cancel: {
        actionType: 'record',
        icon: 'XCircle',
        variant: 'danger',
        component: components.ConfirmAction,
        guard: 'Cancel this job? It will not run (again).',
        isAccessible: ({ record }) => ['created', 'retry', 'active'].includes(String(record?.params.state)),
        handler: command('cancel', 'cancelled'),
      },
    },
  };
}
