import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

export type PipelineRunStatus = 'pending' | 'running' | 'failed' | 'succeeded';
export type PipelineStepStatus = 'running' | 'failed' | 'succeeded';

/** One run of a long pipeline (an ingestion, a podcast): where it is and why it stopped. */
export class PipelineRun extends Model<InferAttributes<PipelineRun>, InferCreationAttributes<PipelineRun>> {
  declare id: CreationOptional<string>;
  declare organizationId: string | null;
  declare kind: string;
  declare subjectType: string | null;
  declare subjectId: string | null;
  declare input: CreationOptional<Record<string, unknown>>;
  declare status: CreationOptional<PipelineRunStatus>;
  declare currentStep: CreationOptional<string | null>;
  /** Runs of the runner so far; also the fence that stops a stale duplicate run at its next step. */
  declare attempts: CreationOptional<number>;
  declare lastError: CreationOptional<string | null>;
  declare finishedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof PipelineRun {
    return PipelineRun.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        organizationId: { type: DataTypes.UUID, allowNull: true },
        kind: { type: DataTypes.TEXT, allowNull: false },
        subjectType: { type: DataTypes.TEXT, allowNull: true },
        subjectId: { type: DataTypes.TEXT, allowNull: true },
        input: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'pending' },
        currentStep: { type: DataTypes.TEXT, allowNull: true },
        attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        lastError: { type: DataTypes.TEXT, allowNull: true },
        finishedAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'pipeline_runs' },
    );
  }
}

/** One step of a run: done steps keep their output for the steps after them. */
export class PipelineStepRecord extends Model<
  InferAttributes<PipelineStepRecord>,
  InferCreationAttributes<PipelineStepRecord>
> {
  declare runId: string;
  declare name: string;
  declare position: number;
  declare status: PipelineStepStatus;
  declare attempts: number;
  declare output: unknown;
  declare lastError: string | null;
  declare startedAt: Date | null;
  declare finishedAt: Date | null;

  static initModel(sequelize: Sequelize): typeof PipelineStepRecord {
    return PipelineStepRecord.init(
      {
        runId: { type: DataTypes.UUID, primaryKey: true },
        name: { type: DataTypes.TEXT, primaryKey: true },
        position: { type: DataTypes.INTEGER, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false },
        attempts: { type: DataTypes.INTEGER, allowNull: false },
        output: { type: DataTypes.JSONB, allowNull: true },
        lastError: { type: DataTypes.TEXT, allowNull: true },
        startedAt: { type: DataTypes.DATE, allowNull: true },
        finishedAt: { type: DataTypes.DATE, allowNull: true },
      },
      { sequelize, tableName: 'pipeline_steps', timestamps: false },
    );
  }
}
