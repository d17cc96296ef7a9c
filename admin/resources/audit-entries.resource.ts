// Audit entries in the portal: the allow-listed columns, plus the names of the users, organizations,
// API keys and directories they reference (one query per page), so the page shows names and links,
// not raw ids.
// A `user` filter (any entry the user acted in) narrows by the actor.
import type { BaseRecord, Filter } from 'adminjs';
import type { Model, ModelStatic } from 'sequelize';
import type { Sql } from '../../src/shared/sql.ts';
import { AllowListedResource } from './allow-listed.resource.ts';

/** Names computed for the page, never columns: the allow-list names them so the browser may receive them. */
export const AUDIT_NAMES = ['actorName', 'impersonatorName', 'targetName', 'organizationName'] as const;

/** The kinds of actor and target whose names the page looks up. */
type NamedKind = 'user' | 'organization' | 'api_key' | 'directory';
const KIND_LABELS: Record<NamedKind, string> = {
  user: 'user',
  organization: 'organization',
  api_key: 'API key',
  directory: 'directory',
};
const isNamedKind = (kind: unknown): kind is NamedKind => typeof kind === 'string' && kind in KIND_LABELS;
/** Actors without a row of their own. */
const ACTOR_LABELS: Record<string, string> = { system: 'System', identity_service: 'Identity service' };

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
    const ids: Record<NamedKind, Set<string>> = {
      user: new Set(),
      organization: new Set(),
      api_key: new Set(),
      directory: new Set(),
    };
    const add = (kind: unknown, id: unknown) => {
      if (id && isNamedKind(kind)) ids[kind].add(String(id));
    };
    for (const { params } of records) {
      add(params.actorType, params.actorId);
      add('user', params.impersonatorId);
      add('organization', params.organizationId);
      add(params.targetType, params.targetId);
    }
    if (Object.values(ids).every((set) => set.size === 0)) return records;
    const rows = await this.sql.rows<{ id: string; name: string; kind: NamedKind }>(
      `SELECT id::text AS id, first_name || ' ' || last_name AS name, 'user' AS kind FROM users WHERE id::text = ANY($1::text[])
       UNION ALL
       SELECT id::text, name, 'organization' FROM organizations WHERE id::text = ANY($2::text[])
       UNION ALL
       SELECT id::text, name, 'api_key' FROM api_keys WHERE id::text = ANY($3::text[])
       UNION ALL
       SELECT id::text, name, 'directory' FROM directories WHERE id::text = ANY($4::text[])`,
      [[...ids.user], [...ids.organization], [...ids.api_key], [...ids.directory]],
    );
    const name = (kind: unknown, id: unknown) => {
      const found = rows.find((row) => row.kind === kind && row.id === String(id))?.name;
      return found && kind !== 'user' && kind !== 'organization'
        ? `${found} (${KIND_LABELS[kind as NamedKind]})`
        : found;
    };
    for (const { params } of records) {
      const names = {
        actorName: name(params.actorType, params.actorId) ?? ACTOR_LABELS[String(params.actorType)],
        impersonatorName: name('user', params.impersonatorId),
        organizationName: name('organization', params.organizationId),
        targetName: name(params.targetType, params.targetId),
      };
      for (const [key, value] of Object.entries(names)) if (value) params[key] = value;
    }
    return records;
  }
}
