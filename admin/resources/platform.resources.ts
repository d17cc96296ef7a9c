// The portal's other resources, read through the models. Nothing here writes directly: the one action
// with a side effect (revoking an API key) calls the API's service.
import type { ActionContext, ActionRequest, ActionResponse, ResourceOptions, ResourceWithOptions } from 'adminjs';
import type { ModelStatic, Model } from 'sequelize';
import type { Container } from '../../src/container.ts';
import { portalActor } from '../portal-actor.ts';
import { noticeOf } from '../portal-errors.ts';
import { JobRecord } from './job-record.model.ts';

/** List, show and filter only. */
const READ_ONLY: ResourceOptions['actions'] = {
  new: { isAccessible: false },
  edit: { isAccessible: false },
  delete: { isAccessible: false },
  bulkDelete: { isAccessible: false },
};

const readOnly = (model: ModelStatic<Model>, options: ResourceOptions = {}): ResourceWithOptions => ({
  resource: model,
  options: { navigation: { name: 'Platform', icon: 'Database' }, ...options, actions: { ...READ_ONLY, ...options.actions } },
});

export function platformResources(container: Container): ResourceWithOptions[] {
  const { models, services } = container;
  const history = { name: 'History', icon: 'Clock' };
  const apiKeys = readOnly(models.ApiKey, {
    listProperties: ['name', 'prefix', 'organizationId', 'createdAt', 'lastUsedAt', 'revokedAt'],
    properties: { keyHash: { isVisible: false } },
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
  const resources: ResourceWithOptions[] = [
    readOnly(models.Organization, { listProperties: ['name', 'slug', 'plan', 'environment', 'createdAt'] }),
    apiKeys,
    readOnly(models.AuditEntry, { navigation: history, sort: { sortBy: 'id', direction: 'desc' }, listProperties: ['occurredAt', 'action', 'actorId', 'impersonatorId', 'targetType', 'targetId', 'requestId'] }),
    readOnly(models.ImpersonationSession, { navigation: history, sort: { sortBy: 'startedAt', direction: 'desc' } }),
    readOnly(models.ImpersonationRequest, { navigation: history, sort: { sortBy: 'occurredAt', direction: 'desc' } }),
    readOnly(models.OutboxMessage, { navigation: { name: 'Mail', icon: 'Mail' }, sort: { sortBy: 'createdAt', direction: 'desc' }, listProperties: ['createdAt', 'template', 'toAddress', 'subject', 'status', 'attempts', 'sentAt'] }),
    readOnly(JobRecord.initModel(container.db.sequelize), { id: 'jobs', navigation: { name: 'Jobs', icon: 'Activity' }, sort: { sortBy: 'createdOn', direction: 'desc' } }),
  ];
  // Models of other modules (members, events, courses, webhooks, deliveries...) appear read-only
  // until a file here gives them actions that call their services.
  const known = new Set<unknown>([models.User, models.Organization, models.ApiKey, models.AuditEntry, models.ImpersonationSession, models.ImpersonationRequest, models.OutboxMessage, models.PasswordToken]);
  for (const model of Object.values(models) as Array<ModelStatic<Model>>) {
    if (!known.has(model)) resources.push(readOnly(model));
  }
  return resources;
}
