import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';
import type { ResourceFormat } from './resource.model.ts';

/** One stored file of a resource. Replacing the file adds a version; the old ones stay (client admins may download them). */
export class ResourceVersion extends Model<InferAttributes<ResourceVersion>, InferCreationAttributes<ResourceVersion>> {
  declare id: CreationOptional<string>;
  declare organizationId: string;
  declare resourceId: string;
  declare version: number;
  /** Where FileStorage keeps the bytes (never shown on the wire). */
  declare storageKey: string;
  declare fileName: string;
  declare contentType: string;
  declare format: ResourceFormat;
  declare sizeBytes: number;
  declare sha256: string;
  declare createdBy: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof ResourceVersion {
    return ResourceVersion.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        organizationId: { type: DataTypes.UUID, allowNull: false, field: 'organization_id' },
        resourceId: { type: DataTypes.UUID, allowNull: false, field: 'resource_id' },
        version: { type: DataTypes.INTEGER, allowNull: false },
        storageKey: { type: DataTypes.TEXT, allowNull: false, field: 'storage_key' },
        fileName: { type: DataTypes.TEXT, allowNull: false, field: 'file_name' },
        contentType: { type: DataTypes.TEXT, allowNull: false, field: 'content_type' },
        format: { type: DataTypes.TEXT, allowNull: false },
        // bigint arrives as a string from pg; 500 MB fits a JS number exactly
        sizeBytes: {
          type: DataTypes.BIGINT,
          allowNull: false,
          field: 'size_bytes',
          get() {
            return Number(this.getDataValue('sizeBytes'));
          },
        },
        sha256: { type: DataTypes.TEXT, allowNull: false },
        createdBy: { type: DataTypes.UUID, allowNull: true, field: 'created_by' },
        createdAt: { type: DataTypes.DATE, field: 'created_at' },
      },
      { sequelize, tableName: 'resource_versions', updatedAt: false },
    );
  }
}
