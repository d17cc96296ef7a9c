import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

export type CourseStatus = 'draft' | 'published' | 'archived';
export type CourseLevel = 'introductory' | 'intermediate' | 'advanced';

export class Course extends Model<InferAttributes<Course>, InferCreationAttributes<Course>> {
  declare id: CreationOptional<string>;
  declare organizationId: string;
  declare title: string;
  declare description: string | null;
  declare status: CourseStatus;
  declare level: CourseLevel;
  declare durationMinutes: number | null;
  /** numeric(6,2) and numeric(12,2): pg returns them as strings, exact to the cent. */
  declare credits: string | number;
  declare price: string | number;
  declare currency: string;
  declare publishedAt: Date | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof Course {
    return Course.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        organizationId: { type: DataTypes.UUID, allowNull: false },
        title: { type: DataTypes.TEXT, allowNull: false },
        description: { type: DataTypes.TEXT, allowNull: true },
        status: { type: DataTypes.TEXT, allowNull: false },
        level: { type: DataTypes.TEXT, allowNull: false },
        durationMinutes: { type: DataTypes.INTEGER, allowNull: true },
        credits: { type: DataTypes.DECIMAL(6, 2), allowNull: false },
        price: { type: DataTypes.DECIMAL(12, 2), allowNull: false },
        currency: { type: DataTypes.TEXT, allowNull: false },
        publishedAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'courses' },
    );
  }
}
