import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';
import type { SettingsByKind, SsoProtocolKind } from './protocols/sso-protocol.ts';

/** `draft` until enabled once; `active` signs people in; `inactive` refuses them (disabled, or deactivated by the identity service). */
export const SSO_CONNECTION_STATUSES = ['draft', 'active', 'inactive'] as const;
export type SsoConnectionStatus = (typeof SSO_CONNECTION_STATUSES)[number];

/** The roles SSO may grant: never a platform admin, never a sponsor (sponsors are invited, not provisioned). */
export { PROVISIONED_ROLES as SSO_ROLES, type ProvisionedRole as SsoRole } from '../../shared/access/roles.ts';
import type { ProvisionedRole as SsoRole } from '../../shared/access/roles.ts';

export interface GroupRole {
  /** A group name or id as the IdP sends it (Entra sends object ids). */
  group: string;
  role: SsoRole;
}

export class SsoConnection extends Model<InferAttributes<SsoConnection>, InferCreationAttributes<SsoConnection>> {
  declare id: CreationOptional<string>;
  declare organizationId: string;
  declare name: string;
  declare protocol: SsoProtocolKind;
  declare status: CreationOptional<SsoConnectionStatus>;
  declare domains: CreationOptional<string[]>;
  declare settings: SettingsByKind[SsoProtocolKind];
  declare secretSealed: CreationOptional<string | null>;
  declare groupRoles: CreationOptional<GroupRole[]>;
  declare defaultRole: CreationOptional<SsoRole>;
  declare allowIdpInitiated: CreationOptional<boolean>;
  declare createMembers: CreationOptional<boolean>;
  declare lastTestedAt: CreationOptional<Date | null>;
  declare lastTestOk: CreationOptional<boolean | null>;
  declare lastTestDetail: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof SsoConnection {
    return SsoConnection.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        organizationId: { type: DataTypes.UUID, allowNull: false },
        name: { type: DataTypes.TEXT, allowNull: false },
        protocol: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'draft' },
        domains: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: [] },
        settings: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        secretSealed: { type: DataTypes.TEXT, allowNull: true },
        groupRoles: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
        defaultRole: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'ROLE_MEMBER' },
        allowIdpInitiated: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        createMembers: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        lastTestedAt: { type: DataTypes.DATE, allowNull: true },
        lastTestOk: { type: DataTypes.BOOLEAN, allowNull: true },
        lastTestDetail: { type: DataTypes.TEXT, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'sso_connections' },
    );
  }
}
