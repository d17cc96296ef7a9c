import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';
import type { WebhookEventType } from './webhook.catalog.ts';
import type { RetiredSecret } from './webhook.secrets.ts';

export type WebhookSubscriptionStatus = 'active' | 'paused' | 'disabled';

export class WebhookSubscription extends Model<
  InferAttributes<WebhookSubscription>,
  InferCreationAttributes<WebhookSubscription>
> {
  declare id: CreationOptional<string>;
  declare organizationId: string;
  declare url: string;
  declare description: string | null;
  declare eventTypes: WebhookEventType[];
  declare status: CreationOptional<WebhookSubscriptionStatus>;
  declare disabledReason: CreationOptional<string | null>;
  /** The `whsec_` secret, sealed with AES-256-GCM (it must be read back to sign). */
  declare secretSealed: string;
  /** Secrets rotations replaced, each signing until its own expiry (webhook.secrets.ts). */
  declare retiredSecrets: CreationOptional<RetiredSecret[]>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof WebhookSubscription {
    return WebhookSubscription.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        organizationId: { type: DataTypes.UUID, allowNull: false },
        url: { type: DataTypes.TEXT, allowNull: false },
        description: { type: DataTypes.TEXT, allowNull: true },
        eventTypes: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'active' },
        disabledReason: { type: DataTypes.TEXT, allowNull: true },
        secretSealed: { type: DataTypes.TEXT, allowNull: false },
        retiredSecrets: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'webhook_subscriptions' },
    );
  }
}
