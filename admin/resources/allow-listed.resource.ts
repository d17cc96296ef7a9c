// A model in the portal shows only the columns its resource names. Hiding a property in AdminJS's
// options is not enough: its JSON API sends every column of a record whatever the UI displays. Here the
// other columns are never selected, filtered on or sorted by, so a sealed secret or a stored payload
// cannot leave the server through the portal.
import { Resource } from '@adminjs/sequelize';
import type { BaseRecord, Filter } from 'adminjs';
import type { Model, ModelStatic } from 'sequelize';

type Attributes = ReturnType<Resource['rawAttributes']>;

export class AllowListedResource extends Resource {
  private readonly allowed: readonly string[];

  constructor(model: ModelStatic<Model>, properties: readonly string[]) {
    super(model);
    const all = super.rawAttributes();
    const unknown = properties.filter((name) => !(name in all));
    if (unknown.length) throw new Error(`${model.name} has no attribute ${unknown.join(', ')} for the Admin Portal`);
    const primaryKey = this.primaryKey();
    this.allowed = properties.includes(primaryKey) ? properties : [primaryKey, ...properties];
  }

  /** The allow-listed attributes only: AdminJS derives properties, filters and forms from these. */
  override rawAttributes(): Attributes {
    const all = super.rawAttributes();
    return Object.fromEntries(this.allowed.map((name) => [name, all[name]])) as Attributes;
  }

  override async count(filter: Filter): Promise<number> {
    return super.count(this.knownFilters(filter));
  }

  override async find(
    filter: Filter,
    options: { limit?: number; offset?: number; sort?: { sortBy?: string; direction?: 'asc' | 'desc' } },
  ): Promise<BaseRecord[]> {
    const sortBy =
      options.sort?.sortBy && this.allowed.includes(options.sort.sortBy) ? options.sort.sortBy : this.primaryKey();
    return this.only(await super.find(this.knownFilters(filter), { ...options, sort: { ...options.sort, sortBy } }));
  }

  override async findOne(id: string): Promise<BaseRecord | null> {
    const record = await super.findOne(id);
    return record && this.only([record])[0]!;
  }

  /** Also what AdminJS uses to show a record referenced from another resource. */
  override async findMany(ids: Array<string | number>): Promise<BaseRecord[]> {
    return this.only(await super.findMany(ids));
  }

  /** A filter on a column outside the list would make the adapter fail, or answer questions about it. */
  private knownFilters(filter: Filter): Filter {
    for (const [path, entry] of Object.entries(filter?.filters ?? {})) {
      if (!entry.property || !this.allowed.includes(path.split('.')[0]!)) delete filter.filters[path];
    }
    return filter;
  }

  private only(records: BaseRecord[]): BaseRecord[] {
    for (const record of records) {
      record.params = Object.fromEntries(
        Object.entries(record.params).filter(([path]) => this.allowed.includes(path.split('.')[0]!)),
      );
    }
    return records;
  }
}
