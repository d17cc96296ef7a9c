import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';
import type { ImpersonationMode } from '../../shared/access/actor.ts';

export type ImpersonationEndReason = 'exited' | 'expired' | 'revoked';

export class ImpersonationSession extends Model<
  InferAttributes<ImpersonationSession>,
  InferCreationAttributes<ImpersonationSession>
> {
  declare id: CreationOptional<string>;
  declare adminId: string;
  declare targetUserId: string;
  declare mode: ImpersonationMode;
  declare reason: string | null;
  declare startedAt: Date;
  declare expiresAt: Date;
  declare endedAt: CreationOptional<Date | null>;
  declare endReason: CreationOptional<ImpersonationEndReason | null>;

  static initModel(sequelize: Sequelize): typeof ImpersonationSession {
    return ImpersonationSession.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        adminId: { type: DataTypes.UUID, allowNull: false },
        targetUserId: { type: DataTypes.UUID, allowNull: false },
        mode: { type: DataTypes.TEXT, allowNull: false },
        reason: { type: DataTypes.TEXT, allowNull: true },
        startedAt: { type: DataTypes.DATE, allowNull: false },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
        endedAt: { type: DataTypes.DATE, allowNull: true },
        endReason: { type: DataTypes.TEXT, allowNull: true },
      },
      { sequelize, tableName: 'impersonation_sessions', timestamps: false },
    );
  }
}
