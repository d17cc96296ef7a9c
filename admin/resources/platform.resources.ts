// The portal's other resources, read through the models, each with the properties PORTAL_PROPERTIES allows.
// Nothing here writes directly: the one action with a side effect (revoking an API key) calls the API's service.
import type { ActionContext, ActionRequest, ActionResponse, ResourceOptions, ResourceWithOptions } from 'adminjs';
import type { ModelStatic, Model } from 'sequelize';
import type { Container } from '../../src/container.ts';
import { portalActor } from '../portal-actor.ts';
import { noticeOf } from '../portal-errors.ts';
import { AllowListedResource } from './allow-listed.resource.ts';
import { PORTAL_PROPERTIES } from './portal-properties.ts';
import { JobRecord } from './job-record.model.ts';

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
const readOnly = (model: ModelStatic<Model>, properties: readonly string[], options: ResourceOptions = {}): ResourceWithOptions => ({
  resource: new AllowListedResource(model, properties),
  options: { navigation: { name: 'Platform', icon: 'Database' }, ...options, actions: { ...READ_ONLY, ...options.actions } },
});

export function platformResources(container: Container): ResourceWithOptions[] {
  const { models, services } = container;
  const history = { name: 'History', icon: 'Clock' };
  const apiKeys = readOnly(models.ApiKey, PORTAL_PROPERTIES.api_keys, {
    listProperties: ['name', 'prefix', 'organizationId', 'createdAt', 'lastUsedAt', 'revokedAt'],
    actions: {
      revoke: {
        actionType: 'record',
        icon: 'XCircle',
        variant: 'danger',
        guard: 'Revoke this API key? It stops working at once.',
        isAccessible: ({ record }) => !record?.params.revokedAt,
        handler: async (_request: ActionRequest, _response: unknown, context: ActionContext): Promise<ActionResponse> => {
          const record = context.record!;
          try {
            // a platform admin acts inside the key's organization, as with the Guildhall-Organization header
            await services.apiKeys.revoke(await portalActor(context.currentAdmin, String(record.params.organizationId)), String(record.id()));
            const fresh = await context.resource.findOne(String(record.id()), context);
            return { record: (fresh ?? record).toJSON(context.currentAdmin), notice: { message: 'API key revoked', type: 'success' } };
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
    readOnly(models.AuditEntry, PORTAL_PROPERTIES.audit_log, { navigation: history, sort: { sortBy: 'id', direction: 'desc' }, listProperties: ['occurredAt', 'action', 'actorId', 'impersonatorId', 'targetType', 'targetId', 'requestId'] }),
    readOnly(models.ImpersonationSession, PORTAL_PROPERTIES.impersonation_sessions, { navigation: history, sort: { sortBy: 'startedAt', direction: 'desc' } }),
    readOnly(models.ImpersonationRequest, PORTAL_PROPERTIES.impersonation_requests, { navigation: history, sort: { sortBy: 'occurredAt', direction: 'desc' } }),
    readOnly(models.OutboxMessage, PORTAL_PROPERTIES.mail_outbox, { navigation: { name: 'Mail', icon: 'Mail' }, sort: { sortBy: 'createdAt', direction: 'desc' }, listProperties: ['createdAt', 'template', 'toAddress', 'subject', 'status', 'attempts', 'sentAt'] }),
    readOnly(models.WebhookSubscription, PORTAL_PROPERTIES.webhook_subscriptions, { navigation: webhooks, sort: { sortBy: 'createdAt', direction: 'desc' }, listProperties: ['url', 'organizationId', 'eventTypes', 'status', 'createdAt'] }),
    readOnly(models.WebhookDelivery, PORTAL_PROPERTIES.webhook_deliveries, { navigation: webhooks, sort: { sortBy: 'createdAt', direction: 'desc' }, listProperties: ['createdAt', 'subscriptionId', 'status', 'attemptCount', 'lastStatusCode', 'nextAttemptAt'] }),
    readOnly(JobRecord.initModel(container.db.sequelize), PORTAL_PROPERTIES.jobs, { id: 'jobs', navigation: { name: 'Jobs', icon: 'Activity' }, sort: { sortBy: 'createdOn', direction: 'desc' } }),
  ];
}
