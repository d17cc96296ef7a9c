import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

/** A resource category: name unique per organization ignoring case, ordered by position; archiving hides it from members. */
export class ResourceCategory extends Model<
  InferAttributes<ResourceCategory>,
  InferCreationAttributes<ResourceCategory>
> {
  declare id: CreationOptional<string>;
  declare organizationId: string;
  declare name: string;
  declare description: CreationOptional<string | null>;
  declare icon: CreationOptional<string | null>;
  declare iconStorageKey: CreationOptional<string | null>;
  declare position: CreationOptional<number>;
  declare archivedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof ResourceCategory {
    return ResourceCategory.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        organizationId: { type: DataTypes.UUID, allowNull: false, field: 'organization_id' },
        name: { type: DataTypes.TEXT, allowNull: false },
        description: { type: DataTypes.TEXT, allowNull: true },
        icon: { type: DataTypes.TEXT, allowNull: true },
        iconStorageKey: { type: DataTypes.TEXT, allowNull: true, field: 'icon_storage_key' },
        position: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        archivedAt: { type: DataTypes.DATE, allowNull: true, field: 'archived_at' },
        createdAt: { type: DataTypes.DATE, field: 'created_at' },
        updatedAt: { type: DataTypes.DATE, field: 'updated_at' },
      },
      { sequelize, tableName: 'resource_categories' },
    );
  }
}
