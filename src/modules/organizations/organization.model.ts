import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';
import type { AppEnv, Plan } from '../../config.ts';

export const ORGANIZATION_STATUSES = ['active', 'suspended'] as const;
export type OrganizationStatus = (typeof ORGANIZATION_STATUSES)[number];

export class Organization extends Model<InferAttributes<Organization>, InferCreationAttributes<Organization>> {
  declare id: CreationOptional<string>;
  declare name: string;
  declare slug: string;
  declare plan: CreationOptional<Plan>;
  declare environment: CreationOptional<AppEnv>;
  declare status: CreationOptional<OrganizationStatus>;
  declare suspendedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof Organization {
    return Organization.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        name: { type: DataTypes.TEXT, allowNull: false },
        slug: { type: DataTypes.TEXT, allowNull: false },
        plan: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'standard' },
        environment: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'production' },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'active' },
        suspendedAt: { type: DataTypes.DATE, allowNull: true, field: 'suspended_at' },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'organizations' },
    );
  }
}
