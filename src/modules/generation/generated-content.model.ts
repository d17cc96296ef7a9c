import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

export const GENERATION_KINDS = ['podcast', 'infographic'] as const;
export type GenerationKind = (typeof GENERATION_KINDS)[number];

export const GENERATION_STATUSES = ['queued', 'running', 'ready', 'failed', 'stale'] as const;
export type GenerationStatus = (typeof GENERATION_STATUSES)[number];

/** Files of one output, by role (`audio`; `svg` and `png`). */
export type StorageKeys = Partial<Record<'audio' | 'svg' | 'png', string>>;

export interface TranscriptLine {
  speaker: string;
  voice: string;
  text: string;
  startSeconds: number;
}

export interface PodcastVoice {
  speaker: string;
  voice: string;
  engine: string;
}

/** A podcast or infographic made from a resource; see the migration for the request/output split. */
export class GeneratedContent extends Model<
  InferAttributes<GeneratedContent>,
  InferCreationAttributes<GeneratedContent>
> {
  declare id: CreationOptional<string>;
  declare organizationId: string;
  declare resourceId: string;
  declare kind: GenerationKind;
  declare status: GenerationStatus;
  declare progress: CreationOptional<number>;
  declare error: CreationOptional<string | null>;
  declare runId: string;
  declare requestedVersionId: string | null;
  declare requestedAt: Date;
  declare sourceVersionId: CreationOptional<string | null>;
  declare sourceVersion: CreationOptional<number | null>;
  declare storageKeys: CreationOptional<StorageKeys>;
  declare transcript: CreationOptional<TranscriptLine[] | null>;
  declare durationSeconds: CreationOptional<number | null>;
  declare voices: CreationOptional<PodcastVoice[] | null>;
  declare altText: CreationOptional<string | null>;
  declare summary: CreationOptional<Record<string, unknown> | null>;
  declare scriptSource: CreationOptional<'composed' | 'claude' | null>;
  declare generatedAt: CreationOptional<Date | null>;
  declare createdBy: string | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof GeneratedContent {
    return GeneratedContent.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        organizationId: { type: DataTypes.UUID, allowNull: false, field: 'organization_id' },
        resourceId: { type: DataTypes.UUID, allowNull: false, field: 'resource_id' },
        kind: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false },
        progress: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        error: { type: DataTypes.TEXT, allowNull: true },
        runId: { type: DataTypes.UUID, allowNull: false, field: 'run_id' },
        requestedVersionId: { type: DataTypes.UUID, allowNull: true, field: 'requested_version_id' },
        requestedAt: { type: DataTypes.DATE, allowNull: false, field: 'requested_at' },
        sourceVersionId: { type: DataTypes.UUID, allowNull: true, field: 'source_version_id' },
        sourceVersion: { type: DataTypes.INTEGER, allowNull: true, field: 'source_version' },
        storageKeys: { type: DataTypes.JSONB, allowNull: false, defaultValue: {}, field: 'storage_keys' },
        transcript: { type: DataTypes.JSONB, allowNull: true },
        // numeric arrives as a string from pg
        durationSeconds: {
          type: DataTypes.DECIMAL(10, 2),
          allowNull: true,
          field: 'duration_seconds',
          get() {
            const v = this.getDataValue('durationSeconds');
            return v === null || v === undefined ? null : Number(v);
          },
        },
        voices: { type: DataTypes.JSONB, allowNull: true },
        altText: { type: DataTypes.TEXT, allowNull: true, field: 'alt_text' },
        summary: { type: DataTypes.JSONB, allowNull: true },
        scriptSource: { type: DataTypes.TEXT, allowNull: true, field: 'script_source' },
        generatedAt: { type: DataTypes.DATE, allowNull: true, field: 'generated_at' },
        createdBy: { type: DataTypes.UUID, allowNull: true, field: 'created_by' },
        createdAt: { type: DataTypes.DATE, field: 'created_at' },
        updatedAt: { type: DataTypes.DATE, field: 'updated_at' },
      },
      { sequelize, tableName: 'generated_content' },
    );
  }
}
