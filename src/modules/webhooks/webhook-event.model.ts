import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** One occurrence of an event kind, as sent: `id` is the `webhook-id`, `body` the exact bytes signed. */
export class WebhookEvent extends Model<InferAttributes<WebhookEvent>, InferCreationAttributes<WebhookEvent>> {
  declare id: string;
  declare organizationId: string;
  declare type: string;
  declare body: string;
  declare occurredAt: Date;

  static initModel(sequelize: Sequelize): typeof WebhookEvent {
    return WebhookEvent.init(
      {
        id: { type: DataTypes.TEXT, primaryKey: true },
        organizationId: { type: DataTypes.UUID, allowNull: false },
        type: { type: DataTypes.TEXT, allowNull: false },
        body: { type: DataTypes.TEXT, allowNull: false },
        occurredAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'webhook_events', timestamps: false },
    );
  }
}
