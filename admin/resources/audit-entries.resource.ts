// Audit entries in the portal: the allow-listed columns, plus the names of the users and
// organizations they reference (one query per page), so the page shows names and links, not raw ids.
// A `user` filter (any entry the user acted in) narrows by the actor.
import type { BaseRecord, Filter } from 'adminjs';
import type { Model, ModelStatic } from 'sequelize';
import type { Sql } from '../../src/shared/sql.ts';
import { AllowListedResource } from './allow-listed.resource.ts';

/** Names computed for the page, never columns: the allow-list names them so the browser may receive them. */
export const AUDIT_NAMES = ['actorName', 'impersonatorName', 'targetName', 'organizationName'] as const;

/** Where a target type's records live in the portal (a target of another type shows its id). */
export const TARGET_RESOURCES: Record<string, string> = {
  user: 'users',
  organization: 'organizations',
  api_key: 'api_keys',
  webhook_subscription: 'webhook_subscriptions',
  impersonation_session: 'impersonation_sessions',
};

export class AuditEntriesResource extends AllowListedResource {
  constructor(
    model: ModelStatic<Model>,
    properties: readonly string[],
    private readonly sql: Sql,
  ) {
    super(
      model,
      properties.filter((name) => !(AUDIT_NAMES as readonly string[]).includes(name)),
    );
  }

  override async count(filter: Filter): Promise<number> {
    return super.count(this.byUser(filter));
  }

  override async find(filter: Filter, options: Parameters<AllowListedResource['find']>[1]): Promise<BaseRecord[]> {
    return this.named(await super.find(this.byUser(filter), options));
  }

  override async findOne(id: string): Promise<BaseRecord | null> {
    const record = await super.findOne(id);
    return record && (await this.named([record]))[0]!;
  }

  /** The `user` filter is the actor's id (a text column holding users', keys' and services' ids). */
  private byUser(filter: Filter): Filter {
    const user = filter?.filters?.user;
    if (user) {
      delete filter.filters.user;
      filter.filters.actorId = { path: 'actorId', value: String(user.value), property: this.property('actorId')! };
    }
    return filter;
  }

  private async named(records: BaseRecord[]): Promise<BaseRecord[]> {
    const users = new Set<string>();
    const organizations = new Set<string>();
    for (const { params } of records) {
      if (params.actorType === 'user' && params.actorId) users.add(String(params.actorId));
      if (params.impersonatorId) users.add(String(params.impersonatorId));
      if (params.organizationId) organizations.add(String(params.organizationId));
      if (params.targetId && params.targetType === 'user') users.add(String(params.targetId));
      if (params.targetId && params.targetType === 'organization') organizations.add(String(params.targetId));
    }
    if (!users.size && !organizations.size) return records;
    const rows = await this.sql.rows<{ id: string; name: string; kind: 'user' | 'organization' }>(
      `SELECT id::text AS id, first_name || ' ' || last_name AS name, 'user' AS kind FROM users WHERE id::text = ANY($1::text[])
       UNION ALL
       SELECT id::text, name, 'organization' FROM organizations WHERE id::text = ANY($2::text[])`,
      [[...users], [...organizations]],
    );
    const name = (kind: string, id: unknown) => rows.find((row) => row.kind === kind && row.id === String(id))?.name;
    for (const { params } of records) {
      const names = {
        actorName: params.actorType === 'user' ? name('user', params.actorId) : undefined,
        impersonatorName: name('user', params.impersonatorId),
        organizationName: name('organization', params.organizationId),
        targetName:
          params.targetType === 'user' || params.targetType === 'organization'
            ? name(params.targetType, params.targetId)
            : undefined,
      };
      for (const [key, value] of Object.entries(names)) if (value) params[key] = value;
    }
    return records;
  }
}
