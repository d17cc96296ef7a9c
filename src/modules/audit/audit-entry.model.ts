import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';
import type { PrincipalType } from '../../shared/access/actor.ts';

export class AuditEntry extends Model<InferAttributes<AuditEntry>, InferCreationAttributes<AuditEntry>> {
  declare id: CreationOptional<string>;
  declare occurredAt: CreationOptional<Date>;
  declare organizationId: string | null;
  declare actorType: PrincipalType;
  declare actorId: string | null;
  declare impersonatorId: string | null;
  declare action: string;
  declare targetType: string;
  declare targetId: string | null;
  declare before: Record<string, unknown> | null;
  declare after: Record<string, unknown> | null;
  declare requestId: string | null;

  static initModel(sequelize: Sequelize): typeof AuditEntry {
    return AuditEntry.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        occurredAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
        organizationId: { type: DataTypes.UUID, allowNull: true },
        actorType: { type: DataTypes.TEXT, allowNull: false },
        actorId: { type: DataTypes.TEXT, allowNull: true },
        impersonatorId: { type: DataTypes.UUID, allowNull: true },
        action: { type: DataTypes.TEXT, allowNull: false },
        targetType: { type: DataTypes.TEXT, allowNull: false },
        targetId: { type: DataTypes.TEXT, allowNull: true },
        before: { type: DataTypes.JSONB, allowNull: true },
        after: { type: DataTypes.JSONB, allowNull: true },
        requestId: { type: DataTypes.TEXT, allowNull: true },
      },
      { sequelize, tableName: 'audit_log', timestamps: false },
    );
  }
}
