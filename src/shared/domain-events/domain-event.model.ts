import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** The outbox of domain events: every event, whether or not anyone subscribed. */
export class DomainEventRecord extends Model<
  InferAttributes<DomainEventRecord>,
  InferCreationAttributes<DomainEventRecord>
> {
  declare id: string;
  declare organizationId: string | null;
  declare type: string;
  declare actorType: string | null;
  declare actorId: string | null;
  declare data: Record<string, unknown>;
  declare occurredAt: Date;

  static initModel(sequelize: Sequelize): typeof DomainEventRecord {
    return DomainEventRecord.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        organizationId: { type: DataTypes.UUID, allowNull: true },
        type: { type: DataTypes.TEXT, allowNull: false },
        actorType: { type: DataTypes.TEXT, allowNull: true },
        actorId: { type: DataTypes.TEXT, allowNull: true },
        data: { type: DataTypes.JSONB, allowNull: false },
        occurredAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'domain_events', timestamps: false },
    );
  }

  toEvent() {
    return {
      id: this.id,
      type: this.type,
      organizationId: this.organizationId,
      actor: this.actorType && this.actorId ? { type: this.actorType, id: this.actorId } : null,
      data: this.data,
      occurredAt: this.occurredAt,
    };
  }
}
