// Audit entries in the portal: the allow-listed columns, plus the names of the users, organizations,
// API keys and directories they reference (one query per page), so the page shows names and links,
// not raw ids.
// A `user` filter (any entry the user acted in) narrows by the actor.
import type { BaseRecord, Filter } from 'adminjs';
import type { Model, ModelStatic } from 'sequelize';
import type { Sql } from '../../src/shared/sql.ts';
import { AllowListedResource } from './allow-listed.resource.ts';
import { auditNames } from './audit-names.ts';

/** Names computed for the page, never columns: the allow-list names them so the browser may receive them. */
export const AUDIT_NAMES = ['actorName', 'impersonatorName', 'targetName', 'organizationName'] as const;

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
    const name = await auditNames(
      this.sql,
      records.flatMap(
        ({ params }): Array<[unknown, unknown]> => [
          [params.actorType, params.actorId],
          ['user', params.impersonatorId],
          ['organization', params.organizationId],
          [params.targetType, params.targetId],
        ],
      ),
    );
    for (const { params } of records) {
      const names = {
        actorName: name(params.actorType, params.actorId),
        impersonatorName: name('user', params.impersonatorId),
        organizationName: name('organization', params.organizationId),
        targetName: name(params.targetType, params.targetId),
      };
      for (const [key, value] of Object.entries(names)) if (value) params[key] = value;
    }
    return records;
  }
}
