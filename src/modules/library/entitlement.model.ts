import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

/** A purchase of a paid resource by a member, recorded by an integrator (no payment processing here). */
export class ResourceEntitlement extends Model<
  InferAttributes<ResourceEntitlement>,
  InferCreationAttributes<ResourceEntitlement>
> {
  declare id: CreationOptional<string>;
  declare organizationId: string;
  declare resourceId: string;
  declare memberId: string;
  declare reference: CreationOptional<string | null>;
  declare grantedAt: CreationOptional<Date>;
  declare revokedAt: CreationOptional<Date | null>;
  declare createdBy: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof ResourceEntitlement {
    return ResourceEntitlement.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        organizationId: { type: DataTypes.UUID, allowNull: false, field: 'organization_id' },
        resourceId: { type: DataTypes.UUID, allowNull: false, field: 'resource_id' },
        memberId: { type: DataTypes.UUID, allowNull: false, field: 'member_id' },
        reference: { type: DataTypes.TEXT, allowNull: true },
        grantedAt: { type: DataTypes.DATE, allowNull: false, field: 'granted_at', defaultValue: DataTypes.NOW },
        revokedAt: { type: DataTypes.DATE, allowNull: true, field: 'revoked_at' },
        createdBy: { type: DataTypes.UUID, allowNull: true, field: 'created_by' },
        createdAt: { type: DataTypes.DATE, field: 'created_at' },
      },
      { sequelize, tableName: 'resource_entitlements', updatedAt: false },
    );
  }
}
