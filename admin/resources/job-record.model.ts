// pg-boss's own job table, read-only, so administrators see status, attempts and the last error.
import { DataTypes, Model, type Sequelize } from 'sequelize';

export class JobRecord extends Model {
  static initModel(sequelize: Sequelize): typeof JobRecord {
    return JobRecord.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        name: { type: DataTypes.TEXT },
        // pg-boss's job_state enum: declared as one so the portal's filter compares with = (LIKE has no enum operator)
        state: { type: DataTypes.ENUM('created', 'retry', 'active', 'completed', 'cancelled', 'failed') },
        data: { type: DataTypes.JSONB },
        output: { type: DataTypes.JSONB, comment: 'the last error of a failed attempt, or the result' },
        retryCount: { type: DataTypes.INTEGER, field: 'retry_count' },
        retryLimit: { type: DataTypes.INTEGER, field: 'retry_limit' },
        createdOn: { type: DataTypes.DATE, field: 'created_on' },
        startedOn: { type: DataTypes.DATE, field: 'started_on' },
        completedOn: { type: DataTypes.DATE, field: 'completed_on' },
      },
      { sequelize, schema: 'pgboss', tableName: 'job', timestamps: false, modelName: 'JobRecord' },
    );
  }
}
