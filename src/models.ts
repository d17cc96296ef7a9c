// Every Sequelize model, initialised against one connection, with its associations.
import type { Sequelize } from 'sequelize';
import { ApiKey } from './modules/api-keys/api-key.model.ts';
import { AuditEntry } from './modules/audit/audit-entry.model.ts';
import { ImpersonationRequest } from './modules/impersonation/impersonation-request.model.ts';
import { ImpersonationSession } from './modules/impersonation/impersonation-session.model.ts';
import { OutboxMessage } from './modules/mail/outbox-message.model.ts';
import { Course } from './modules/courses/course.model.ts';
import { Event } from './modules/events/event.model.ts';
import { Member } from './modules/members/member.model.ts';
import { Organization } from './modules/organizations/organization.model.ts';
import { PasswordToken } from './modules/users/password-token.model.ts';
import { User } from './modules/users/user.model.ts';
import { WebhookAttempt, WebhookDelivery } from './modules/webhooks/webhook-delivery.model.ts';
import { WebhookEvent } from './modules/webhooks/webhook-event.model.ts';
import { WebhookSubscription } from './modules/webhooks/webhook-subscription.model.ts';
import { PipelineRun, PipelineStepRecord } from './jobs/pipeline/pipeline-run.model.ts';
import { DomainEventRecord } from './shared/domain-events/domain-event.model.ts';

export function initModels(sequelize: Sequelize) {
  const models = {
    Organization: Organization.initModel(sequelize),
    User: User.initModel(sequelize),
    ApiKey: ApiKey.initModel(sequelize),
    AuditEntry: AuditEntry.initModel(sequelize),
    PasswordToken: PasswordToken.initModel(sequelize),
    ImpersonationSession: ImpersonationSession.initModel(sequelize),
    ImpersonationRequest: ImpersonationRequest.initModel(sequelize),
    OutboxMessage: OutboxMessage.initModel(sequelize),
    Member: Member.initModel(sequelize),
    Event: Event.initModel(sequelize),
    Course: Course.initModel(sequelize),
    WebhookSubscription: WebhookSubscription.initModel(sequelize),
    WebhookEvent: WebhookEvent.initModel(sequelize),
    WebhookDelivery: WebhookDelivery.initModel(sequelize),
    WebhookAttempt: WebhookAttempt.initModel(sequelize),
    DomainEvent: DomainEventRecord.initModel(sequelize),
    PipelineRun: PipelineRun.initModel(sequelize),
    PipelineStep: PipelineStepRecord.initModel(sequelize),
  };
  User.belongsTo(Organization, { as: 'organization', foreignKey: 'organizationId' });
  Organization.hasMany(User, { as: 'users', foreignKey: 'organizationId' });
  ApiKey.belongsTo(Organization, { as: 'organization', foreignKey: 'organizationId' });
  WebhookDelivery.belongsTo(WebhookSubscription, { as: 'subscription', foreignKey: 'subscriptionId' });
  WebhookDelivery.belongsTo(WebhookEvent, { as: 'event', foreignKey: 'eventId' });
  WebhookDelivery.hasMany(WebhookAttempt, { as: 'attempts', foreignKey: 'deliveryId' });
  return models;
}

export type Models = ReturnType<typeof initModels>;
