import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

/** `scim`: our SCIM 2.0 server; `identity_service`: a directory the identity service brokers (webhooks, pull sync). */
export const DIRECTORY_PROVIDERS = ['scim', 'identity_service'] as const;
export type DirectoryProvider = (typeof DIRECTORY_PROVIDERS)[number];

/** The roles a directory may grant: never a platform admin. */
export {
  PROVISIONED_ROLES as DIRECTORY_ROLES,
  type ProvisionedRole as DirectoryRole,
} from '../../shared/access/roles.ts';
import type { ProvisionedRole as DirectoryRole } from '../../shared/access/roles.ts';

export interface DirectoryGroupRole {
  /** A group's display name (or its external id), matched case-insensitively. */
  group: string;
  role: DirectoryRole;
}

/** The spec's table: a group for admins, one for staff, one for members. */
export const DEFAULT_GROUP_ROLES: DirectoryGroupRole[] = [
  { group: 'admins', role: 'ROLE_CLIENT_ADMIN' },
  { group: 'staff', role: 'ROLE_CLIENT_USER' },
  { group: 'members', role: 'ROLE_MEMBER' },
];

export class Directory extends Model<InferAttributes<Directory>, InferCreationAttributes<Directory>> {
  declare id: CreationOptional<string>;
  declare organizationId: string;
  declare name: string;
  declare provider: DirectoryProvider;
  declare externalId: CreationOptional<string | null>;
  declare status: CreationOptional<'active' | 'inactive'>;
  declare tokenHash: CreationOptional<string | null>;
  declare tokenPrefix: CreationOptional<string | null>;
  declare tokenCreatedAt: CreationOptional<Date | null>;
  declare hardDelete: CreationOptional<boolean>;
  declare sendWelcome: CreationOptional<boolean>;
  declare groupRoles: CreationOptional<DirectoryGroupRole[]>;
  declare defaultRole: CreationOptional<DirectoryRole>;
  declare lastSyncAt: CreationOptional<Date | null>;
  declare lastError: CreationOptional<string | null>;
  declare lastErrorAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof Directory {
    return Directory.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        organizationId: { type: DataTypes.UUID, allowNull: false },
        name: { type: DataTypes.TEXT, allowNull: false },
        provider: { type: DataTypes.TEXT, allowNull: false },
        externalId: { type: DataTypes.TEXT, allowNull: true },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'active' },
        tokenHash: { type: DataTypes.TEXT, allowNull: true },
        tokenPrefix: { type: DataTypes.TEXT, allowNull: true },
        tokenCreatedAt: { type: DataTypes.DATE, allowNull: true },
        hardDelete: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        sendWelcome: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        groupRoles: { type: DataTypes.JSONB, allowNull: false, defaultValue: DEFAULT_GROUP_ROLES },
        defaultRole: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'ROLE_MEMBER' },
        lastSyncAt: { type: DataTypes.DATE, allowNull: true },
        lastError: { type: DataTypes.TEXT, allowNull: true },
        lastErrorAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'directories' },
    );
  }
}
