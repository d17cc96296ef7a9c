import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

/**
 * queued: waiting for the mail.send job; sent: accepted by the SMTP server; failed: retries used up;
 * outbox: no SMTP_URL configured, so the message stays here for administrators to read.
 */
export type OutboxStatus = 'queued' | 'sent' | 'failed' | 'outbox';

export class OutboxMessage extends Model<InferAttributes<OutboxMessage>, InferCreationAttributes<OutboxMessage>> {
  declare id: CreationOptional<string>;
  declare template: string;
  declare toAddress: string;
  declare userId: string | null;
  declare subject: string;
  declare textBody: string | null;
  declare htmlBody: string | null;
  /** The text with secrets replaced: the only body the API and the portal show. Kept after sending. */
  declare redactedText: string | null;
  declare status: OutboxStatus;
  declare attempts: CreationOptional<number>;
  declare lastError: CreationOptional<string | null>;
  declare providerMessageId: CreationOptional<string | null>;
  declare sentAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof OutboxMessage {
    return OutboxMessage.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        template: { type: DataTypes.TEXT, allowNull: false },
        toAddress: { type: DataTypes.TEXT, allowNull: false },
        userId: { type: DataTypes.UUID, allowNull: true },
        subject: { type: DataTypes.TEXT, allowNull: false },
        textBody: { type: DataTypes.TEXT, allowNull: true },
        htmlBody: { type: DataTypes.TEXT, allowNull: true },
        redactedText: { type: DataTypes.TEXT, allowNull: true },
        status: { type: DataTypes.TEXT, allowNull: false },
        attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        lastError: { type: DataTypes.TEXT, allowNull: true },
        providerMessageId: { type: DataTypes.TEXT, allowNull: true },
        sentAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'mail_outbox' },
    );
  }
}
