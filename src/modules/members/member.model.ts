import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

export type MemberStatus = 'active' | 'pending' | 'lapsed' | 'cancelled';
export type MemberTier = 'member' | 'premium';

export class Member extends Model<InferAttributes<Member>, InferCreationAttributes<Member>> {
  declare id: CreationOptional<string>;
  declare organizationId: string;
  declare firstName: string;
  declare lastName: string;
  declare email: string;
  declare phone: string | null;
  declare tier: MemberTier;
  declare membershipType: string | null;
  declare status: MemberStatus;
  /** Calendar dates, as YYYY-MM-DD strings. */
  declare joinedAt: string | null;
  declare renewalDate: string | null;
  declare userId: string | null;
  declare customFields: Record<string, unknown>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof Member {
    return Member.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        organizationId: { type: DataTypes.UUID, allowNull: false },
        firstName: { type: DataTypes.TEXT, allowNull: false },
        lastName: { type: DataTypes.TEXT, allowNull: false },
        email: { type: DataTypes.TEXT, allowNull: false },
        phone: { type: DataTypes.TEXT, allowNull: true },
        tier: { type: DataTypes.TEXT, allowNull: false },
        membershipType: { type: DataTypes.TEXT, allowNull: true },
        status: { type: DataTypes.TEXT, allowNull: false },
        joinedAt: { type: DataTypes.DATEONLY, allowNull: true },
        renewalDate: { type: DataTypes.DATEONLY, allowNull: true },
        userId: { type: DataTypes.UUID, allowNull: true },
        customFields: { type: DataTypes.JSONB, allowNull: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'members' },
    );
  }
}
