// SCIM's reads over one directory's users and groups: filtered lists (the filter translated to
// parameterised SQL, always inside `directory_id = $1`), with each user's groups or each group's
// members in the same statement, and a group's members.
import type { Sql } from '../../../shared/sql.ts';
import type { Directory } from '../directory.model.ts';
import type { DirectoryGroupRow, DirectoryUserRow } from '../directory-provisioning.service.ts';
import { type AttributeMap, filterToSql } from './scim-filter.sql.ts';
import type { ListQuery } from './scim-http.ts';
import type { GroupMember } from './scim-group.mapper.ts';

const text = (sql: string, caseExact = false) => ({ kind: 'scalar', sql, type: 'string', caseExact }) as const;
const jsonElements = (column: string) =>
  `jsonb_array_elements(CASE WHEN jsonb_typeof(${column}) = 'array' THEN ${column} ELSE '[]'::jsonb END)`;
const ENTERPRISE = "u.resource->'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'";

/** What a Users filter may name (RFC 7643 caseExact: userName, e-mail and names are case-insensitive). */
export const USER_ATTRIBUTES: AttributeMap = {
  id: { kind: 'scalar', sql: 'u.id', type: 'uuid', caseExact: true },
  externalid: text('u.external_id', true),
  username: text('u.user_name'),
  displayname: text("u.resource->>'displayName'"),
  'name.givenname': text('u.given_name'),
  'name.familyname': text('u.family_name'),
  'name.formatted': text("u.resource->'name'->>'formatted'"),
  title: text("u.resource->>'title'"),
  active: { kind: 'scalar', sql: 'u.active', type: 'boolean' },
  'meta.created': { kind: 'scalar', sql: 'u.created_at', type: 'date' },
  'meta.lastmodified': { kind: 'scalar', sql: 'u.updated_at', type: 'date' },
  'urn:ietf:params:scim:schemas:extension:enterprise:2.0:user:department': text(`${ENTERPRISE}->>'department'`),
  'urn:ietf:params:scim:schemas:extension:enterprise:2.0:user:employeenumber': text(`${ENTERPRISE}->>'employeeNumber'`),
  emails: {
    kind: 'multi',
    exists: (condition) => `EXISTS (SELECT 1 FROM ${jsonElements("u.resource->'emails'")} e WHERE ${condition})`,
    subs: {
      value: text("e->>'value'"),
      type: text("e->>'type'"),
      primary: { kind: 'scalar', sql: "(lower(e->>'primary') = 'true')", type: 'boolean' },
    },
  },
  groups: {
    kind: 'multi',
    exists: (condition) =>
      `EXISTS (SELECT 1 FROM directory_group_members gm JOIN directory_groups g ON g.id = gm.group_id
                WHERE gm.directory_user_id = u.id AND ${condition})`,
    subs: { value: { kind: 'scalar', sql: 'g.id', type: 'uuid', caseExact: true }, display: text('g.display_name') },
  },
};

export const GROUP_ATTRIBUTES: AttributeMap = {
  id: { kind: 'scalar', sql: 'g.id', type: 'uuid', caseExact: true },
  externalid: text('g.external_id', true),
  displayname: text('g.display_name'),
  'meta.created': { kind: 'scalar', sql: 'g.created_at', type: 'date' },
  'meta.lastmodified': { kind: 'scalar', sql: 'g.updated_at', type: 'date' },
  members: {
    kind: 'multi',
    exists: (condition) =>
      `EXISTS (SELECT 1 FROM directory_group_members m JOIN directory_users mu ON mu.id = m.directory_user_id
                WHERE m.group_id = g.id AND ${condition})`,
    subs: { value: { kind: 'scalar', sql: 'mu.id', type: 'uuid', caseExact: true }, display: text('mu.user_name') },
  },
};

const USER_COLUMNS = `u.id, u.directory_id AS "directoryId", u.organization_id AS "organizationId", u.user_id AS "userId",
  u.external_id AS "externalId", u.user_name AS "userName", u.given_name AS "givenName", u.family_name AS "familyName",
  u.email, u.active, u.resource, u.version, u.created_at AS "createdAt", u.updated_at AS "updatedAt"`;
const GROUP_COLUMNS = `g.id, g.directory_id AS "directoryId", g.organization_id AS "organizationId",
  g.external_id AS "externalId", g.display_name AS "displayName", g.version, g.created_at AS "createdAt",
  g.updated_at AS "updatedAt"`;

export type UserWithGroups = DirectoryUserRow & { groups: Array<{ id: string; displayName: string }> };
export type GroupWithMembers = DirectoryGroupRow & { members: GroupMember[] | null };

export interface ListResult<T> {
  rows: T[];
  total: number;
}

export class ScimRepository {
  constructor(private readonly sql: Sql) {}

  async users(directory: Directory, query: ListQuery): Promise<ListResult<UserWithGroups>> {
    const params: unknown[] = [directory.id];
    const where = query.filter ? ` AND (${filterToSql(query.filter, USER_ATTRIBUTES, params)})` : '';
    const total = await this.sql.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM directory_users u WHERE u.directory_id = $1${where}`,
      params,
    );
    if (query.count === 0 || total!.n < query.startIndex) return { rows: [], total: total!.n };
    const rows = await this.sql.rows<UserWithGroups>(
      `SELECT ${USER_COLUMNS},
              COALESCE((SELECT json_agg(json_build_object('id', g.id, 'displayName', g.display_name)
                                        ORDER BY g.display_name)
                          FROM directory_group_members gm JOIN directory_groups g ON g.id = gm.group_id
                         WHERE gm.directory_user_id = u.id), '[]') AS groups
         FROM directory_users u WHERE u.directory_id = $1${where}
        ORDER BY u.created_at, u.id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, query.count, query.startIndex - 1],
    );
    return { rows, total: total!.n };
  }

  async groups(directory: Directory, query: ListQuery, withMembers: boolean): Promise<ListResult<GroupWithMembers>> {
    const params: unknown[] = [directory.id];
    const where = query.filter ? ` AND (${filterToSql(query.filter, GROUP_ATTRIBUTES, params)})` : '';
    const total = await this.sql.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM directory_groups g WHERE g.directory_id = $1${where}`,
      params,
    );
    if (query.count === 0 || total!.n < query.startIndex) return { rows: [], total: total!.n };
    const members = withMembers
      ? `COALESCE((SELECT json_agg(json_build_object('id', u.id, 'userName', u.user_name) ORDER BY u.user_name, u.id)
                     FROM directory_group_members m JOIN directory_users u ON u.id = m.directory_user_id
                    WHERE m.group_id = g.id), '[]')`
      : 'NULL';
    const rows = await this.sql.rows<GroupWithMembers>(
      `SELECT ${GROUP_COLUMNS}, ${members} AS members
         FROM directory_groups g WHERE g.directory_id = $1${where}
        ORDER BY g.created_at, g.id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, query.count, query.startIndex - 1],
    );
    return { rows, total: total!.n };
  }

  async members(groupId: string): Promise<GroupMember[]> {
    return this.sql.rows<GroupMember>(
      `SELECT u.id, u.user_name AS "userName" FROM directory_group_members m
         JOIN directory_users u ON u.id = m.directory_user_id WHERE m.group_id = $1 ORDER BY u.user_name, u.id`,
      [groupId],
    );
  }
}
