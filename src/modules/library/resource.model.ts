import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';
import type { AccessLevel } from './access-levels.ts';

export const RESOURCE_TYPES = ['document', 'video', 'audio', 'image'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/** Formats accepted at upload, decided from the content (magic bytes; SVG by parsing), never from the name. */
export const RESOURCE_FORMATS = [
  'pdf',
  'docx',
  'xlsx',
  'pptx',
  'mp4',
  'webm',
  'mp3',
  'wav',
  'png',
  'jpeg',
  'svg',
] as const;
export type ResourceFormat = (typeof RESOURCE_FORMATS)[number];

export const RESOURCE_STATUSES = ['draft', 'published'] as const;
export type ResourceStatus = (typeof RESOURCE_STATUSES)[number];

export class Resource extends Model<InferAttributes<Resource>, InferCreationAttributes<Resource>> {
  declare id: CreationOptional<string>;
  declare organizationId: string;
  declare name: string;
  declare description: CreationOptional<string | null>;
  declare type: ResourceType;
  declare format: ResourceFormat;
  declare accessLevel: CreationOptional<AccessLevel>;
  /** numeric(15,3) arrives as a string: money is never a float. */
  declare priceAmount: CreationOptional<string | null>;
  declare priceCurrency: CreationOptional<string | null>;
  declare status: CreationOptional<ResourceStatus>;
  declare publishedAt: CreationOptional<Date | null>;
  declare tags: CreationOptional<string[]>;
  declare featuredImageKey: CreationOptional<string | null>;
  declare thumbnailKey: CreationOptional<string | null>;
  declare currentVersion: CreationOptional<number>;
  declare viewCount: CreationOptional<string>;
  declare downloadCount: CreationOptional<string>;
  declare createdBy: CreationOptional<string | null>;
  declare updatedBy: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof Resource {
    return Resource.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        organizationId: { type: DataTypes.UUID, allowNull: false, field: 'organization_id' },
        name: { type: DataTypes.TEXT, allowNull: false },
        description: { type: DataTypes.TEXT, allowNull: true },
        type: { type: DataTypes.TEXT, allowNull: false },
        format: { type: DataTypes.TEXT, allowNull: false },
        accessLevel: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'members', field: 'access_level' },
        priceAmount: { type: DataTypes.DECIMAL(15, 3), allowNull: true, field: 'price_amount' },
        priceCurrency: { type: DataTypes.CHAR(3), allowNull: true, field: 'price_currency' },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'draft' },
        publishedAt: { type: DataTypes.DATE, allowNull: true, field: 'published_at' },
        tags: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: [] },
        featuredImageKey: { type: DataTypes.TEXT, allowNull: true, field: 'featured_image_key' },
        thumbnailKey: { type: DataTypes.TEXT, allowNull: true, field: 'thumbnail_key' },
        currentVersion: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1, field: 'current_version' },
        viewCount: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0, field: 'view_count' },
        downloadCount: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0, field: 'download_count' },
        createdBy: { type: DataTypes.UUID, allowNull: true, field: 'created_by' },
        updatedBy: { type: DataTypes.UUID, allowNull: true, field: 'updated_by' },
        createdAt: { type: DataTypes.DATE, field: 'created_at' },
        updatedAt: { type: DataTypes.DATE, field: 'updated_at' },
      },
      { sequelize, tableName: 'resources' },
    );
  }
}
