import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type NonAttribute,
  type Sequelize,
} from 'sequelize';
import type { WebhookEvent } from './webhook-event.model.ts';
import type { WebhookSubscription } from './webhook-subscription.model.ts';

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One event to one subscription: recorded before the first attempt, so nothing is lost. */
export class WebhookDelivery extends Model<InferAttributes<WebhookDelivery>, InferCreationAttributes<WebhookDelivery>> {
  declare id: CreationOptional<string>;
  declare organizationId: string;
  declare subscriptionId: string;
  declare eventId: string;
  declare status: CreationOptional<WebhookDeliveryStatus>;
  declare attemptCount: CreationOptional<number>;
  declare retryStep: CreationOptional<number>;
  declare nextAttemptAt: Date | null;
  declare lastAttemptAt: CreationOptional<Date | null>;
  declare lastStatusCode: CreationOptional<number | null>;
  declare lastError: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  declare event?: NonAttribute<WebhookEvent>;
  declare subscription?: NonAttribute<WebhookSubscription>;
  declare attempts?: NonAttribute<WebhookAttempt[]>;

  static initModel(sequelize: Sequelize): typeof WebhookDelivery {
    return WebhookDelivery.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        organizationId: { type: DataTypes.UUID, allowNull: false },
        subscriptionId: { type: DataTypes.UUID, allowNull: false },
        eventId: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'pending' },
        attemptCount: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        retryStep: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        nextAttemptAt: { type: DataTypes.DATE, allowNull: true },
        lastAttemptAt: { type: DataTypes.DATE, allowNull: true },
        lastStatusCode: { type: DataTypes.INTEGER, allowNull: true },
        lastError: { type: DataTypes.TEXT, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'webhook_deliveries' },
    );
  }
}

/** Every attempt is kept: when, how long, what the receiver answered or why it failed. */
export class WebhookAttempt extends Model<InferAttributes<WebhookAttempt>, InferCreationAttributes<WebhookAttempt>> {
  declare id: CreationOptional<string>;
  declare deliveryId: string;
  declare attemptedAt: Date;
  declare statusCode: number | null;
  declare durationMs: number;
  declare error: string | null;
  declare responseExcerpt: string | null;

  static initModel(sequelize: Sequelize): typeof WebhookAttempt {
    return WebhookAttempt.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        deliveryId: { type: DataTypes.UUID, allowNull: false },
        attemptedAt: { type: DataTypes.DATE, allowNull: false },
        statusCode: { type: DataTypes.INTEGER, allowNull: true },
        durationMs: { type: DataTypes.INTEGER, allowNull: false },
        error: { type: DataTypes.TEXT, allowNull: true },
        responseExcerpt: { type: DataTypes.TEXT, allowNull: true },
      },
      { sequelize, tableName: 'webhook_attempts', timestamps: false },
    );
  }
}
