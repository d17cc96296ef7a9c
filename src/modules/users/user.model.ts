import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';
import type { Role } from '../../shared/access/roles.ts';

export type UserStatus = 'active' | 'inactive' | 'suspended' | 'pending';

export class User extends Model<InferAttributes<User>, InferCreationAttributes<User>> {
  declare id: CreationOptional<string>;
  declare organizationId: string | null;
  declare firstName: string;
  declare lastName: string;
  declare email: string;
  declare phone: CreationOptional<string | null>;
  declare role: Role;
  declare status: CreationOptional<UserStatus>;
  declare passwordHash: CreationOptional<string | null>;
  declare mfaSecret: CreationOptional<string | null>;
  declare mfaEnabledAt: CreationOptional<Date | null>;
  declare lastLoginAt: CreationOptional<Date | null>;
  declare department: CreationOptional<string | null>;
  declare jobTitle: CreationOptional<string | null>;
  /** The SSO connection that provisioned the user, and the IdP's id for them there. */
  declare ssoConnectionId: CreationOptional<string | null>;
  declare ssoSubject: CreationOptional<string | null>;
  /** The directory that provisions the user: its name, e-mail and role are managed there. */
  declare directoryId: CreationOptional<string | null>;
  declare deletedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof User {
    return User.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        organizationId: { type: DataTypes.UUID, allowNull: true },
        firstName: { type: DataTypes.TEXT, allowNull: false },
        lastName: { type: DataTypes.TEXT, allowNull: false },
        email: { type: DataTypes.TEXT, allowNull: false },
        phone: { type: DataTypes.TEXT, allowNull: true },
        role: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'active' },
        passwordHash: { type: DataTypes.TEXT, allowNull: true },
        mfaSecret: { type: DataTypes.TEXT, allowNull: true },
        mfaEnabledAt: { type: DataTypes.DATE, allowNull: true },
        lastLoginAt: { type: DataTypes.DATE, allowNull: true },
        department: { type: DataTypes.TEXT, allowNull: true },
        jobTitle: { type: DataTypes.TEXT, allowNull: true },
        ssoConnectionId: { type: DataTypes.UUID, allowNull: true },
        ssoSubject: { type: DataTypes.TEXT, allowNull: true },
        directoryId: { type: DataTypes.UUID, allowNull: true },
        deletedAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      // paranoid: soft-deleted users vanish from ordinary queries; `paranoid: false` reaches them.
      { sequelize, tableName: 'users', paranoid: true },
    );
  }
}
