// A model in the portal shows only the columns its resource names. Hiding a property in AdminJS's
// options is not enough: its JSON API sends every column of a record whatever the UI displays. Here the
// other columns are never selected, filtered on or sorted by, so a sealed secret or a stored payload
// cannot leave the server through the portal.
import { Resource } from '@adminjs/sequelize';
import type { BaseRecord, Filter } from 'adminjs';
import type { Model, ModelStatic } from 'sequelize';
import { dayBound } from '../../src/shared/date-range.ts';
import { isUuid } from './ids.ts';

type Attributes = ReturnType<Resource['rawAttributes']>;

const INTEGER = /^-?\d{1,18}$/;

/**
 * Whether PostgreSQL can compare a column of this type with the value at all. It refuses 'x' for a
 * uuid, an integer or a date (a query error: the portal answered 500 to an edited URL); such a value
 * matches no row instead.
 */
function comparable(attribute: Attributes[string] | undefined, value: unknown): boolean {
  const type = attribute?.type as { key?: string; values?: unknown[] } | undefined;
  switch (type?.key) {
    case 'UUID':
      return isUuid(value);
    case 'INTEGER':
    case 'BIGINT':
      return INTEGER.test(String(value));
    case 'ENUM':
      return (type.values ?? []).includes(value);
    case 'DATE':
    case 'DATEONLY': {
      const bounds = value !== null && typeof value === 'object' ? Object.values(value) : [value];
      return bounds.every((bound) => bound === undefined || bound === '' || Number.isFinite(Date.parse(String(bound))));
    }
    default:
      return true;
  }
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A date filter's days (the portal's picker sends the day picked) are whole UTC days, both included,
 * as in the API and the users list: a `to` of 29 November read as its first instant left that day out.
 */
function wholeDays(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const { from, to } = value as { from?: unknown; to?: unknown };
  return {
    ...value,
    ...(typeof from === 'string' && DAY.test(from) ? { from: dayBound(from, 'from') } : {}),
    ...(typeof to === 'string' && DAY.test(to) ? { to: dayBound(to, 'to') } : {}),
  };
}

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
    const known = this.knownFilters(filter);
    return known ? super.count(known) : 0;
  }

  override async find(
    filter: Filter,
    options: { limit?: number; offset?: number; sort?: { sortBy?: string; direction?: 'asc' | 'desc' } },
  ): Promise<BaseRecord[]> {
    const sortBy =
      options.sort?.sortBy && this.allowed.includes(options.sort.sortBy) ? options.sort.sortBy : this.primaryKey();
    const known = this.knownFilters(filter);
    if (!known) return [];
    return this.only(await super.find(known, { ...options, sort: { ...options.sort, sortBy } }));
  }

  override async findOne(id: string): Promise<BaseRecord | null> {
    if (!this.isId(id)) return null;
    const record = await super.findOne(id);
    return record && this.only([record])[0]!;
  }

  /** Also what AdminJS uses to show a record referenced from another resource. */
  override async findMany(ids: Array<string | number>): Promise<BaseRecord[]> {
    return this.only(await super.findMany(ids.filter((id) => this.isId(id))));
  }

  private isId(id: unknown): boolean {
    return comparable(super.rawAttributes()[this.primaryKey()], id);
  }

  /**
   * A filter on a column outside the list would make the adapter fail, or answer questions about it:
   * it is dropped. A value its column cannot hold matches nothing: undefined.
   */
  private knownFilters(filter: Filter): Filter | undefined {
    const attributes = super.rawAttributes();
    for (const [path, entry] of Object.entries(filter?.filters ?? {})) {
      const name = path.split('.')[0]!;
      if (!entry.property || !this.allowed.includes(name)) delete filter.filters[path];
      else if (!comparable(attributes[name], entry.value)) return undefined;
      else if ((attributes[name]?.type as { key?: string } | undefined)?.key === 'DATE')
        entry.value = wholeDays(entry.value) as typeof entry.value;
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
