import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

/** One request made with an impersonation token: both identities, what was asked and the answer. Append-only. */
export class ImpersonationRequest extends Model<
  InferAttributes<ImpersonationRequest>,
  InferCreationAttributes<ImpersonationRequest>
> {
  declare id: CreationOptional<string>;
  declare sessionId: string;
  declare adminId: string;
  declare targetUserId: string;
  declare method: string;
  declare path: string;
  declare statusCode: number;
  declare requestId: string | null;
  declare occurredAt: Date;

  static initModel(sequelize: Sequelize): typeof ImpersonationRequest {
    return ImpersonationRequest.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        sessionId: { type: DataTypes.UUID, allowNull: false },
        adminId: { type: DataTypes.UUID, allowNull: false },
        targetUserId: { type: DataTypes.UUID, allowNull: false },
        method: { type: DataTypes.TEXT, allowNull: false },
        path: { type: DataTypes.TEXT, allowNull: false },
        statusCode: { type: DataTypes.INTEGER, allowNull: false },
        requestId: { type: DataTypes.TEXT, allowNull: true },
        occurredAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'impersonation_requests', timestamps: false },
    );
  }
}
